import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFileMirror } from '../../src/scripts/file-mirror.js';
import { createScriptService, type ScriptService } from '../../src/scripts/script-service.js';
import { keys } from '../../src/store/keys.js';
import type { Redis } from '../../src/store/redis.js';
import {
  createScriptRepository,
  type ScriptRepository,
} from '../../src/store/script-repository.js';
import { dropPrefix, storeRedis, uniquePrefix } from '../support/redis.js';
import { testSigner } from '../support/script-record.js';
import { memoryTrail } from '../support/trail.js';

let prefix: string;
let dir: string;
let redis: Redis;
let repository: ScriptRepository;
/** The service's rules over the repository: every write below goes through both. */
let store: ScriptService;
const who = 'admin';

beforeAll(() => {
  prefix = uniquePrefix('script-store');
  dir = mkdtempSync(path.join(os.tmpdir(), 'steward-script-repo-'));
  redis = storeRedis(prefix);
  repository = createScriptRepository(redis);
  store = createScriptService({
    store: repository,
    mirror: createFileMirror(dir),
    log: pino({ level: 'silent' }),
    signer: testSigner,
    trail: memoryTrail(),
  });
});
afterAll(async () => {
  redis.disconnect();
  await dropPrefix(prefix);
  rmSync(dir, { recursive: true, force: true });
});

describe('script repository', () => {
  it('serialises concurrent updates: every one becomes its own version', async () => {
    await store.create('busy.star', 'result = 0\n', who);
    await Promise.all(
      Array.from({ length: 20 }, (_, i) => store.update('busy.star', `result = ${i + 1}\n`, who)),
    );
    const versions = await store.versions('busy.star');
    expect(versions).toHaveLength(21);
    expect(new Set(versions.map((v) => v.commit)).size).toBe(21);
    const record = await store.mustGet('busy.star');
    expect(record.head).toBe(versions[0]?.commit);
    const head = await store.version('busy.star', record.head);
    expect(head?.source).toBe(record.source);
    expect(head?.hash).toBe(record.hash);
  });

  it('creates a name once when two writers race', async () => {
    const results = await Promise.allSettled([
      store.create('race.star', 'result = 1\n', who),
      store.create('race.star', 'result = 2\n', who),
    ]);
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    expect(await store.versions('race.star')).toHaveLength(1);
  });

  it('keeps the last 100 runs, newest first, and none after a delete', async () => {
    await store.create('runs.star', 'result = 1\n', who);
    for (let i = 0; i < 105; i++) {
      await repository.recordRun('runs.star', {
        timestamp: new Date(1_700_000_000_000 + i).toISOString(),
        success: i % 2 === 0,
        duration_ms: i,
      });
    }
    const history = await store.executionHistory('runs.star');
    expect(history).toHaveLength(100);
    expect(history[0]?.duration_ms).toBe(104);
    await store.remove('runs.star');
    await repository.recordRun('runs.star', { timestamp: 'x', success: true, duration_ms: 1 });
    expect(await redis.exists(keys.scriptHistory('runs.star'))).toBe(0);
  });

  it('keeps the status field that /metrics counts', async () => {
    await store.create('metric.star', 'result = 1\n', who);
    expect(await redis.hget(keys.script('metric.star'), 'status')).toBe('pending');
    await store.approve('metric.star', 'admin');
    expect(await redis.hget(keys.script('metric.star'), 'status')).toBe('approved');
    expect(await redis.sismember(keys.scriptIndex(), 'metric.star')).toBe(1);
  });

  it('counts scripts by status for /metrics', async () => {
    const before = await repository.counts();
    await store.create('count-a.star', 'result = 1\n', who);
    await store.create('count-b.star', 'result = 1\n', who);
    await store.approve('count-a.star', 'admin');
    await store.reject('count-b.star', 'admin', 'no');
    const after = await repository.counts();
    expect(after.total - before.total).toBe(2);
    expect(after.approved - before.approved).toBe(1);
    expect(after.rejected - before.rejected).toBe(1);
    expect(after.pending).toBe(before.pending);
  });

  it('writes a record and its first version in one commit, under the script lock', async () => {
    const version = {
      commit: 'c'.repeat(40),
      message: 'm',
      author: 'a',
      timestamp: '2025-01-01T00:00:00.000Z',
      source: 'result = 2\n',
      hash: 'h',
    };
    await repository.withLock('raw.star', () =>
      repository.commit(
        {
          name: 'raw.star',
          source: version.source,
          hash: 'h',
          status: 'pending',
          metadata: { description: '', author: '', version: '', secrets: [] },
          created_at: version.timestamp,
          modified_at: version.timestamp,
          head: version.commit,
        },
        version,
      ),
    );
    expect(await repository.exists('raw.star')).toBe(true);
    expect(await repository.versionExists('raw.star', version.commit)).toBe(true);
    expect((await repository.get('raw.star'))?.head).toBe(version.commit);
    expect(await repository.versions('raw.star')).toEqual([
      { commit: version.commit, message: 'm', author: 'a', timestamp: version.timestamp },
    ]);
    await repository.remove('raw.star');
    expect(await repository.get('raw.star')).toBeNull();
    expect(await repository.version('raw.star', version.commit)).toBeNull();
  });
});
