/** A client of Steward's API as the administrator, for tests that prepare what a screen shows. */
export type AdminApi = (
  method: string,
  url: string,
  body?: unknown,
) => Promise<{ status: number; body: any }>;

export const TEST_ADMIN = { username: 'admin', password: 'correct horse battery staple' };

/**
 * First-run setup through the API (from loopback, so no setup token); a Steward still starting
 * answers 503 for a moment after /health answers.
 */
export async function setupAdmin(base: string, admin = TEST_ADMIN): Promise<void> {
  for (const until = Date.now() + 60_000; ; await new Promise((r) => setTimeout(r, 250))) {
    const res = await fetch(`${base}/api/setup`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ ...admin, confirm_password: admin.password }),
    });
    if (res.status === 200) return;
    if (res.status !== 503 || Date.now() > until) {
      throw new Error(`setup answered ${res.status}: ${await res.text()}`);
    }
  }
}

/** Login, then the access token from the refresh cookie, as the web UI does. */
export async function loginApi(base: string, admin = TEST_ADMIN): Promise<AdminApi> {
  const login = await fetch(`${base}/api/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(admin),
  });
  const cookie = (login.headers.get('set-cookie') ?? '').split(';')[0] as string;
  const session = await fetch(`${base}/api/session`, { headers: { cookie } });
  const { access_token: token } = (await session.json()) as { access_token: string };
  return async (method, url, body) => {
    const res = await fetch(`${base}${url}`, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(body ? { 'content-type': 'application/json' } : {}),
      },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
    return { status: res.status, body: (await res.json().catch(() => null)) as any };
  };
}
