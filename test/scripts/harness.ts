import { createTestApp, type TestApp } from '../support/app.js';
import { adminToken } from '../support/auth.js';

export interface ScriptsHarness extends TestApp {
  token: string;
  /** An authenticated request to the app. */
  call(
    method: string,
    url: string,
    payload?: unknown,
  ): Promise<Awaited<ReturnType<TestApp['app']['inject']>>>;
}

/**
 * The whole app on a fresh prefix with an admin token. The per-client rate limit is raised:
 * these suites send more than 60 requests a minute on purpose.
 */
export async function createScriptsHarness(
  overrides: Record<string, unknown> = {},
): Promise<ScriptsHarness> {
  const t = await createTestApp(
    { 'admin.rate_limit.api_per_minute': 100_000, 'scripts.threads': 2, ...overrides },
    'scripts',
  );
  const token = await adminToken(t);
  return Object.assign(t, {
    token,
    call: (method: string, url: string, payload?: unknown) =>
      t.app.inject({
        method: method as 'GET',
        url,
        headers: { authorization: `Bearer ${token}` },
        ...(payload !== undefined ? { payload: payload as object } : {}),
      }),
  });
}
