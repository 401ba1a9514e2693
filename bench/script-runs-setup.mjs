// What bench:scripts and bench:script-timeline share: Steward in this one process (API, script
// worker and its threads, as `steward start` runs them) on a private redis-server, an admin with
// the bench's scripts, and the node:http client their measured requests go through.
import http from 'node:http';
import path from 'node:path';
import { buildApp } from '../dist/api/app.js';
import { loadConfig } from '../dist/config/load.js';
import { createLogger } from '../dist/log/logger.js';
import { createContext } from '../dist/runtime/context.js';
import {
  buildAppDeps,
  buildCore,
  buildServerParts,
  scriptWorkerDeps,
} from '../dist/cli/compose.js';
import { startEmbeddedRedis } from '../dist/store/embedded-redis.js';
import { startScriptRunWorker } from '../dist/workers/script-runs/worker.js';

export const SOURCE = 'def main():\n    return {"sum": args["a"] + args["b"]}\n';
export const SLEEPY = 'def main():\n    time.sleep(5)\n    return {}\n';
const ADMIN = { username: 'bench', password: 'correct horse battery staple' };

/** A redis-server under `dir`, and Steward in this process on it, listening on loopback. */
export async function startInProcess(dir) {
  const redis = await startEmbeddedRedis(path.join(dir, 'redis'));
  const config = loadConfig({
    cwd: dir,
    env: {},
    overrides: {
      'redis.url': redis.url,
      data_dir: path.join(dir, 'data'),
      workspace: path.join(dir, 'workspace'),
      'log.level': 'warn',
      'admin.rate_limit.api_per_minute': 10_000_000,
    },
  });
  const ctx = await createContext(config, createLogger('warn'), redis.url);
  const core = await buildCore(ctx);
  const parts = await buildServerParts(ctx, core, { superviseEngine: false });
  const worker = await startScriptRunWorker(ctx, {
    ...scriptWorkerDeps(core),
    getSecret: async () => null,
    redact: (t) => t,
  });
  const app = await buildApp(await buildAppDeps(ctx, core, parts));
  await app.listen({ host: '127.0.0.1', port: 0 });
  ctx.lifecycle.setCheck('mcp_server', true);
  ctx.lifecycle.markReady();
  return {
    redis,
    worker,
    base: `http://127.0.0.1:${app.server.address().port}`,
    /** Stops Steward; the redis-server stays up for whoever else uses it. */
    async stop() {
      await app.close();
      await worker.close();
      await ctx.close();
    },
  };
}

async function json(at, method, url, body, headers = {}) {
  const res = await fetch(at + url, {
    method,
    headers: { 'content-type': 'application/json', ...headers },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  return { status: res.status, headers: res.headers, body: await res.json().catch(() => null) };
}

/** An admin, a bearer token and the two scripts on the deployment served at `at`. */
export async function prepare(at) {
  const call = (method, url, body, headers) => json(at, method, url, body, headers);
  await call('POST', '/api/setup', { ...ADMIN, confirm_password: ADMIN.password });
  const login = await call('POST', '/api/auth/login', ADMIN);
  const cookie = login.headers.get('set-cookie').split(';')[0];
  const session = await call('GET', '/api/session', undefined, { cookie });
  const bearer = { authorization: `Bearer ${session.body.access_token}` };
  await call('POST', '/api/scripts', { name: 'bench.star', source: SOURCE }, bearer);
  await call('POST', '/api/scripts/bench.star/approve', undefined, bearer);
  await call('POST', '/api/scripts', { name: 'sleepy.star', source: SLEEPY }, bearer);
  await call('POST', '/api/scripts/sleepy.star/approve', undefined, bearer);
  return bearer;
}

// The measured requests go through node:http on kept-alive connections: `fetch` costs this
// process (where the in-process server also runs) about 0.2–0.4 ms of CPU per request here,
// several times what node:http costs, and that is the client's time, not Steward's.
const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
const testBody = JSON.stringify({ args: { a: 1, b: 2 } });

/** POSTs `body` (JSON text) to `url` and resolves with the parsed answer. */
export function post(url, headers, body) {
  return new Promise((resolve, reject) => {
    const req = http.request(
      url,
      { method: 'POST', agent, headers: { 'content-type': 'application/json', ...headers } },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk) => (text += chunk));
        res.on('end', () => resolve(JSON.parse(text)));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** One run of bench.star through POST /test on the deployment at `at`, checked. */
export async function testRun(at, bearer) {
  const body = await post(`${at}/api/scripts/bench.star/test`, bearer, testBody);
  if (!body.success || body.result.sum !== 3) throw new Error(`bad run: ${JSON.stringify(body)}`);
}
