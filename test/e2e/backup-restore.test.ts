import { spawn, type ChildProcess } from 'node:child_process';
import {
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAuditLog } from '../../src/runtime/audit-log.js';
import { createAuditRepository } from '../../src/store/audit-repository.js';
import { createChatIdentityRepository } from '../../src/store/chat-identity-repository.js';
import { createEnginePreferencesRepository } from '../../src/store/engine-preferences-repository.js';
import { freePort } from '../../src/store/embedded-redis.js';
import { createScriptRepository } from '../../src/store/script-repository.js';
import { startServer, type LocalServer } from '../net/local-server.js';
import { cliPath } from '../support/processes.js';
import { dropPrefix, storeRedis, testRedisUrl, uniquePrefix } from '../support/redis.js';
import { approvedRecord } from '../support/script-record.js';

const KEY = 'sk-backup-7f3e9a1c2b4d6e8f';
const ADMIN = { username: 'admin', password: 'correct horse battery staple' };

interface Deployment {
  dir: string;
  prefix: string;
}

function env(d: Deployment, extra: Record<string, string> = {}): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '',
    HOME: d.dir,
    REDIS_URL: testRedisUrl(),
    STEWARD_REDIS_PREFIX: d.prefix,
    STEWARD_CONFIG: path.join(d.dir, 'steward.yaml'),
    STEWARD_DATA_DIR: path.join(d.dir, 'data'),
    STEWARD_WORKSPACE: path.join(d.dir, 'workspace'),
    STEWARD_LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'warn',
    ...extra,
  };
}

function deployment(label: string): Deployment {
  const dir = mkdtempSync(path.join(os.tmpdir(), `steward-${label}-`));
  writeFileSync(
    path.join(dir, 'steward.yaml'),
    JSON.stringify({ engine: { autostart: false }, egress: { allow: ['127.0.0.1'] } }),
  );
  return { dir, prefix: uniquePrefix(label) };
}

/** `steward <args>` to its end: exit code and output. */
function cli(d: Deployment, args: string[]): Promise<{ code: number; out: string; err: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [cliPath, ...args], {
      cwd: d.dir,
      env: env(d),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (err += c.toString()));
    child.once('exit', (code) => resolve({ code: code ?? -1, out, err }));
  });
}

async function until<T>(fn: () => Promise<T | undefined | false>, ms: number, what: string) {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await fn().catch((err: Error) => {
      if (err.message.startsWith('steward start exited')) throw err;
      return undefined;
    });
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

interface Running {
  child: ChildProcess;
  call(method: string, url: string, body?: unknown): Promise<{ status: number; json: any }>;
  stop(): Promise<void>;
}

async function startSteward(d: Deployment): Promise<Running> {
  const port = await freePort();
  const child = spawn(process.execPath, [cliPath, 'start'], {
    cwd: d.dir,
    env: env(d, { STEWARD_PORT: String(port), STEWARD_HOST: '127.0.0.1' }),
    stdio: ['ignore', 'ignore', process.env.TEST_LOG_LEVEL ? 'inherit' : 'ignore'],
  });
  const base = `http://127.0.0.1:${port}`;
  let token = '';
  const call = async (method: string, url: string, body?: unknown) => {
    const res = await fetch(`${base}${url}`, {
      method,
      headers: {
        ...(token ? { authorization: `Bearer ${token}` } : {}),
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    const text = await res.text();
    let json: unknown = text;
    try {
      json = JSON.parse(text);
    } catch {}
    return { status: res.status, json: json as any };
  };
  await until(
    async () => {
      if (child.exitCode !== null) throw new Error(`steward start exited (${child.exitCode})`);
      return (await fetch(`${base}/api/setup/status`)).status === 200;
    },
    60_000,
    'steward start',
  );
  if ((await call('GET', '/api/setup/status')).json.setup_required) {
    expect(
      (await call('POST', '/api/setup', { ...ADMIN, confirm_password: ADMIN.password })).status,
    ).toBe(200);
  }
  const login = await fetch(`${base}/api/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(ADMIN),
  });
  expect(login.status).toBe(200);
  const cookie = (login.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
  const session = await fetch(`${base}/api/session`, { headers: { cookie } });
  token = ((await session.json()) as { access_token: string }).access_token;
  return {
    child,
    call,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
    },
  };
}

describe('backup and restore through the real CLI', () => {
  const a = deployment('backup-a');
  const b = deployment('backup-b');
  let sink: LocalServer;
  const running: Running[] = [];
  const log = pino({ level: 'silent' });

  beforeAll(async () => {
    sink = await startServer((_req, res) => res.end('ok'));
  });
  afterAll(async () => {
    for (const r of running) {
      if (r.child.exitCode === null) r.child.kill('SIGKILL');
    }
    await sink?.close();
    for (const d of [a, b]) {
      await dropPrefix(d.prefix);
      rmSync(d.dir, { recursive: true, force: true });
    }
  });

  const sender = () =>
    `# @secrets: API_KEY -> 127.0.0.1:${sink.port}\ndef main():\n    http.post("http://127.0.0.1:${sink.port}/hook", body = "hi", headers = {"Authorization": "Bearer " + secrets.get("API_KEY")})\n    return "sent"\n`;
  const keyArrivals = () =>
    sink.requests.filter((r) => r.headers.authorization === `Bearer ${KEY}`).length;
  const keysUnder = async (prefix: string) => {
    const redis = storeRedis('');
    try {
      return (await redis.keys(`${prefix}*`)).length;
    } finally {
      redis.disconnect();
    }
  };

  it('brings a whole deployment back into an empty Redis, and refuses what it should', async () => {
    // ---- Deployment A, in use.
    const steward = await startSteward(a);
    running.push(steward);
    const { call } = steward;
    const create = async (name: string, source: string) =>
      expect((await call('POST', '/api/scripts', { name, source })).status).toBe(201);
    await create('send.star', sender());
    expect((await call('POST', '/api/scripts/send.star/approve')).status).toBe(200);
    await create('tick.star', 'def main():\n    return "tick"\n');
    expect((await call('POST', '/api/scripts/tick.star/approve')).status).toBe(200);
    await create('edited.star', 'def main():\n    return 1\n');
    expect((await call('POST', '/api/scripts/edited.star/approve')).status).toBe(200);
    expect(
      (await call('PUT', '/api/scripts/edited.star', { source: 'def main():\n    return 2\n' }))
        .status,
    ).toBe(200);
    await create('rejected.star', 'def main():\n    return 3\n');
    expect((await call('POST', '/api/scripts/rejected.star/reject', { reason: 'no' })).status).toBe(
      200,
    );
    expect((await call('POST', '/api/secrets/API_KEY', { value: KEY })).status).toBe(200);
    expect((await call('POST', '/api/scripts/send.star/test', { args: {} })).json).toMatchObject({
      success: true,
    });
    expect(keyArrivals()).toBe(1);
    const schedule = await call('POST', '/api/schedules', {
      name: 'every second',
      cron_expr: '*/1 * * * * *',
      type: 'script',
      script_name: 'tick.star',
    });
    expect(schedule.status).toBe(201);
    const scheduleId = schedule.json.id as string;
    await until(
      async () => (await call('GET', `/api/schedules/${scheduleId}`)).json.last_run_at,
      30_000,
      'the schedule to run in A',
    );

    // What no API of a test can make here: a paired chat identity, an engine preference, audit
    // entries, and a Redis writer's forged approval (signed with a key that is not A's).
    const redisA = storeRedis(a.prefix);
    await createChatIdentityRepository(redisA).approveIdentity({
      provider: 'telegram',
      user_id: '4242',
      chat_id: '4242',
      name: 'Ada',
      approved_at: new Date().toISOString(),
    });
    await createEnginePreferencesRepository(redisA).setDefaultModel(
      JSON.stringify({ provider: 'mock', model: 'echo' }),
    );
    const auditA = createAuditLog({ repo: createAuditRepository(redisA), redact: (t) => t, log });
    for (const action of ['script.approve', 'secret.set', 'schedule.create']) {
      await auditA.record({ actor: 'admin', channel: 'api', action, target: 'x' });
    }
    await createScriptRepository(redisA).commit(
      approvedRecord('forged.star', 'def main():\n    return "evil"\n'),
    );
    redisA.disconnect();

    // ---- The nightly backup, taken while A runs its every-second schedule.
    const file = path.join(a.dir, 'backups', 'nightly.jsonl');
    mkdirSync(path.dirname(file));
    const backup = await cli(a, ['backup', '--out', file]);
    expect(backup.err).toBe('');
    expect(backup.code).toBe(0);
    expect(backup.out).toMatch(
      /backup written to .*nightly\.jsonl: \d+ keys, (?:[3-9]|[1-9]\d+) audit entries, 2 verified approval/,
    );
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const bytes = readFileSync(file);
    for (const form of [
      KEY,
      Buffer.from(KEY).toString('base64'),
      Buffer.from(KEY).toString('hex'),
    ]) {
      expect(bytes.includes(form)).toBe(false);
    }
    expect(JSON.parse(bytes.toString().split('\n')[0] ?? '')).toMatchObject({
      format: 'steward-backup',
      schema_version: 2,
    });
    await steward.stop();

    // ---- Restores into B, which has its own approval key and, at first, no secrets key.
    const restore = (target: string, ...flags: string[]) => cli(b, ['restore', target, ...flags]);
    const noKey = await restore(file);
    expect(noKey.code).toBe(1);
    expect(noKey.err).toMatch(/Restoring needs that same key/);
    expect(await keysUnder(b.prefix)).toBe(0);

    mkdirSync(path.join(b.dir, 'data'), { recursive: true });
    copyFileSync(path.join(a.dir, 'data', 'secrets_key'), path.join(b.dir, 'data', 'secrets_key'));

    // A forger who edits the file (here: makes the forged approval look vouched for).
    const lines = bytes.toString().split('\n');
    const approvalsAt = lines.findIndex((l) => l.startsWith('{"approvals"'));
    const claims = JSON.parse(lines[approvalsAt] as string) as { approvals: unknown[] };
    claims.approvals.push({
      name: 'forged.star',
      approved_hash: 'sha256:x',
      approved_by: 'admin',
      approved_at: '2026-01-01T00:00:00.000Z',
    });
    lines[approvalsAt] = JSON.stringify(claims);
    const altered = path.join(b.dir, 'altered.jsonl');
    writeFileSync(altered, lines.join('\n'));
    const refused = await restore(altered);
    expect(refused.code).toBe(1);
    expect(refused.err).toMatch(/changed or damaged/);
    const cut = path.join(b.dir, 'cut.jsonl');
    writeFileSync(cut, bytes.subarray(0, bytes.length - 80));
    expect((await restore(cut)).err).toMatch(/cut short/);
    expect(await keysUnder(b.prefix)).toBe(0);

    const restored = await restore(file);
    expect(restored.err).toBe('');
    expect(restored.code).toBe(0);
    expect(restored.out).toMatch(/2 approval\(s\) signed with this deployment's approval key/);
    expect(restored.out).toMatch(/approve them again\): forged\.star/);
    // Once there is data, only --force replaces it.
    const again = await restore(file);
    expect(again.code).toBe(1);
    expect(again.err).toMatch(
      /already holds Steward data \(.*an administrator account, 5 script\(s\), 1 schedule\(s\), an audit log\); restore with --force/,
    );
    const forced = await restore(file, '--force');
    expect(forced.code).toBe(0);
    expect(forced.out).toMatch(/replacing \d+ key\(s\)/);
    // B's approval key is not A's.
    expect(readFileSync(path.join(b.dir, 'data', 'approval_key'), 'utf8')).not.toBe(
      readFileSync(path.join(a.dir, 'data', 'approval_key'), 'utf8'),
    );

    // ---- Deployment B, started on the restored store: the administrator logs in as before.
    const restoredAt = Date.now();
    const stewardB = await startSteward(b);
    running.push(stewardB);
    const callB = stewardB.call;
    const scripts = (await callB('GET', '/api/scripts')).json.scripts as Array<{
      name: string;
      status: string;
    }>;
    expect(Object.fromEntries(scripts.map((s) => [s.name, s.status]))).toEqual({
      'send.star': 'approved',
      'tick.star': 'approved',
      'edited.star': 'pending',
      'rejected.star': 'rejected',
      'forged.star': 'approved',
    });
    expect((await callB('GET', '/api/scripts/edited.star/history')).json.versions).toHaveLength(2);
    expect((await callB('POST', '/api/scripts/edited.star/test', { args: {} })).json).toMatchObject(
      {
        error: 'script_modified',
      },
    );
    // The secret still decrypts and reaches its destination, through an approval signed by B.
    expect((await callB('POST', '/api/scripts/send.star/test', { args: {} })).json).toMatchObject({
      success: true,
      result: { value: 'sent' },
    });
    expect(keyArrivals()).toBe(2);
    expect((await callB('GET', '/api/secrets')).json.secrets).toEqual([
      expect.objectContaining({ name: 'API_KEY', set: true }),
    ]);
    // A forged approval stays what it was: not runnable.
    expect((await callB('POST', '/api/scripts/forged.star/test', { args: {} })).status).toBe(403);
    // The schedule fires again: its job scheduler was re-created from the restored groups.
    await until(
      async () => {
        const s = (await callB('GET', `/api/schedules/${scheduleId}`)).json;
        return Date.parse(s.last_run_at ?? '') > restoredAt && s.last_run_status === 'success';
      },
      30_000,
      'the restored schedule to fire',
    );
    expect((await callB('GET', '/api/chat/identities')).json).toEqual([
      expect.objectContaining({ provider: 'telegram', user_id: '4242', name: 'Ada' }),
    ]);
    const redisB = storeRedis(b.prefix);
    expect(await createEnginePreferencesRepository(redisB).defaultModel()).toBe(
      JSON.stringify({ provider: 'mock', model: 'echo' }),
    );
    redisB.disconnect();
    const audit = (await callB('GET', '/api/audit?limit=200')).json.entries as Array<{
      action: string;
    }>;
    expect(audit.map((e) => e.action)).toEqual(
      expect.arrayContaining(['script.approve', 'secret.set', 'schedule.create', 'backup.restore']),
    );
    await stewardB.stop();
    const verify = await cli(b, ['audit', 'verify']);
    expect(verify.code).toBe(0);
    expect(verify.out).toMatch(/audit log intact: \d+ entries verified/);
  }, 300_000);
});
