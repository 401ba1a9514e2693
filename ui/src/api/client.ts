import type { AccessSession } from './types';

/** An error answer of the admin API (`{error, message}`), or a failure to reach it. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly body: Record<string, unknown> = {},
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

type Listener = (session: AccessSession | null) => void;

/**
 * Calls to the admin API on this origin. The access token lives in this object only (never in
 * localStorage or a cookie the page can read); the refresh cookie (HttpOnly, Path=/api/session)
 * renews it: a 401 triggers one `GET /api/session` shared by every request waiting, then the
 * request is repeated once.
 */
export class ApiClient {
  private session: AccessSession | null = null;
  private refreshing: Promise<AccessSession | null> | null = null;
  private readonly listeners = new Set<Listener>();

  get token(): string | null {
    return this.session?.access_token ?? null;
  }

  get username(): string | null {
    return this.session?.username ?? null;
  }

  onSessionChange(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private setSession(session: AccessSession | null): void {
    this.session = session;
    for (const listener of this.listeners) listener(session);
  }

  /** A new access token from the refresh cookie; null when there is no valid one. */
  refresh(): Promise<AccessSession | null> {
    this.refreshing ??= (async () => {
      try {
        const res = await fetch('/api/session', {
          credentials: 'same-origin',
          headers: { 'x-steward-client': 'ui' },
        });
        const session = res.ok ? ((await res.json()) as AccessSession) : null;
        this.setSession(session);
        return session;
      } catch {
        return null;
      } finally {
        this.refreshing = null;
      }
    })();
    return this.refreshing;
  }

  async login(username: string, password: string): Promise<void> {
    await this.request('POST', '/api/auth/login', { username, password }, { auth: false });
    if (!(await this.refresh())) {
      throw new ApiError(401, 'no_refresh_token', 'the browser did not keep the session cookie');
    }
  }

  async logout(): Promise<void> {
    try {
      await this.request('POST', '/api/auth/logout', undefined, { retry: false });
    } finally {
      this.setSession(null);
    }
  }

  get<T>(path: string): Promise<T> {
    return this.request<T>('GET', path);
  }
  post<T>(path: string, body?: unknown): Promise<T> {
    return this.request<T>('POST', path, body);
  }
  put<T>(path: string, body?: unknown): Promise<T> {
    return this.request<T>('PUT', path, body);
  }
  delete<T = void>(path: string): Promise<T> {
    return this.request<T>('DELETE', path);
  }

  async request<T>(
    method: string,
    path: string,
    body?: unknown,
    opts: { auth?: boolean; retry?: boolean; headers?: Record<string, string> } = {},
  ): Promise<T> {
    const { auth = true, retry = true } = opts;
    // Steward's audit log says a change came through the web UI.
    const headers: Record<string, string> = {
      accept: 'application/json',
      'x-steward-client': 'ui',
      ...opts.headers,
    };
    if (body !== undefined) headers['content-type'] = 'application/json';
    if (auth && this.token) headers.authorization = `Bearer ${this.token}`;
    let res: Response;
    try {
      res = await fetch(path, {
        method,
        headers,
        credentials: 'same-origin',
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      });
    } catch (err) {
      throw new ApiError(0, 'network_error', `Steward did not answer: ${(err as Error).message}`);
    }
    if (res.status === 401 && auth && retry) {
      const renewed = await this.refresh();
      if (renewed) return this.request<T>(method, path, body, { ...opts, retry: false });
    }
    if (res.status === 204) return undefined as T;
    const text = await res.text();
    let parsed: unknown = undefined;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = undefined;
    }
    if (!res.ok) {
      const errBody = (parsed ?? {}) as Record<string, unknown>;
      const code = typeof errBody.error === 'string' ? errBody.error : `http_${res.status}`;
      const message =
        typeof errBody.message === 'string'
          ? errBody.message
          : `${method} ${path} answered ${res.status}`;
      throw new ApiError(res.status, code, message, errBody);
    }
    return parsed as T;
  }

  /**
   * A file the API answers with (`GET /api/backup`): the bearer token cannot ride on a plain
   * link, so the body is fetched here and handed to the browser as a Blob with its file name.
   */
  async download(path: string, retry = true): Promise<{ blob: Blob; filename: string }> {
    const headers: Record<string, string> = this.token
      ? { authorization: `Bearer ${this.token}` }
      : {};
    const res = await fetch(path, { headers, credentials: 'same-origin' }).catch((err: Error) => {
      throw new ApiError(0, 'network_error', `Steward did not answer: ${err.message}`);
    });
    if (res.status === 401 && retry && (await this.refresh())) return this.download(path, false);
    if (!res.ok) {
      const body = (await res.json().catch(() => ({}))) as Record<string, unknown>;
      throw new ApiError(
        res.status,
        typeof body.error === 'string' ? body.error : `http_${res.status}`,
        typeof body.message === 'string' ? body.message : `GET ${path} answered ${res.status}`,
        body,
      );
    }
    const named = /filename="([^"]+)"/.exec(res.headers.get('content-disposition') ?? '');
    return { blob: await res.blob(), filename: named?.[1] ?? 'download' };
  }

  /** Unauthenticated probes at the root (`/health`, `/ready`, `/metrics`): any status is data. */
  async probe<T>(path: string): Promise<{ status: number; body: T | null }> {
    try {
      const res = await fetch(path, { headers: { accept: 'application/json' } });
      const text = await res.text();
      let body: T | null = null;
      try {
        body = JSON.parse(text) as T;
      } catch {}
      return { status: res.status, body };
    } catch {
      return { status: 0, body: null };
    }
  }
}

export const api = new ApiClient();

export function errorMessage(err: unknown): string {
  if (err instanceof ApiError) return err.message;
  return err instanceof Error ? err.message : String(err);
}
