import type { Egress } from './egress.js';

/**
 * A WHATWG `fetch` that sends everything through egress, for libraries that accept a custom
 * fetch (Octokit's `request.fetch`). Only string bodies and byte bodies are supported, which
 * is what JSON API clients send.
 */
export function egressFetch(egress: Egress): typeof fetch {
  return async (input, init) => {
    const request = input instanceof Request ? input : undefined;
    const url = request ? request.url : String(input);
    const headers = new Headers(init?.headers ?? request?.headers);
    const rawBody =
      init?.body ?? (request?.body ? new Uint8Array(await request.arrayBuffer()) : undefined);
    let body: string | Uint8Array | undefined;
    if (typeof rawBody === 'string' || rawBody instanceof Uint8Array) body = rawBody;
    else if (rawBody instanceof ArrayBuffer) body = new Uint8Array(rawBody);
    else if (rawBody !== undefined && rawBody !== null)
      throw new TypeError('egress fetch: unsupported body type');
    const signal = init?.signal ?? request?.signal ?? undefined;
    const res = await egress.fetch(url, {
      method: init?.method ?? request?.method ?? 'GET',
      headers: Object.fromEntries(headers.entries()),
      ...(body !== undefined ? { body } : {}),
      ...(signal ? { signal } : {}),
    });
    const nullBody = res.status === 204 || res.status === 304 || res.status < 200;
    const response = new Response(nullBody ? null : new Uint8Array(res.body), {
      status: res.status,
      headers: res.headers,
    });
    Object.defineProperty(response, 'url', { value: res.url });
    return response;
  };
}
