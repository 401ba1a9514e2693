import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { BadRequestError, ConflictError, NotFoundError } from '../../src/errors/request-errors.js';
import {
  InvalidScriptError,
  ScriptNotFoundError,
  ScriptRefusedError,
} from '../../src/errors/script-errors.js';
import type { Logger } from '../../src/log/logger.js';
import { createFileMirror } from '../../src/scripts/file-mirror.js';
import { commitPattern, hashSource } from '../../src/contracts/script-hashes.js';
import { maxSourceBytes } from '../../src/contracts/script-names.js';
import { createScriptService, type ScriptService } from '../../src/scripts/script-service.js';
import type { Redis } from '../../src/store/redis.js';
import { createScriptRepository } from '../../src/store/script-repository.js';
import { dropPrefix, storeRedis, uniquePrefix } from '../support/redis.js';
import { testSigner } from '../support/script-record.js';
import { memoryTrail } from '../support/trail.js';

let prefix: string;
let root: string;
/** The mirror directory, `<workspace>/scripts`. */
let dir: string;
let redis: Redis;
let services: { scripts: ScriptService };
const silent = pino({ level: 'silent' });
const clock = new Date('2026-03-01T10:00:00.000Z');

/** A service as each process builds it: its own Redis connection, the shared prefix and dir. */
function serviceOn(connection: Redis, log: Logger = silent, mirrorDir = dir): ScriptService {
  return createScriptService({
    store: createScriptRepository(connection),
    mirror: createFileMirror(mirrorDir),
    log,
    signer: testSigner,
    trail: memoryTrail(),
    now: () => clock,
  });
}

beforeAll(() => {
  prefix = uniquePrefix('script-service');
  root = mkdtempSync(path.join(os.tmpdir(), 'steward-script-service-'));
  dir = path.join(root, 'scripts');
  mkdirSync(dir, { recursive: true });
  redis = storeRedis(prefix);
  services = { scripts: serviceOn(redis) };
});
afterAll(async () => {
  redis.disconnect();
  await dropPrefix(prefix);
  rmSync(root, { recursive: true, force: true });
});

describe('script service changes', () => {
  it('creates a pending script at its first version, with its file', async () => {
    const source = '# @description: says hi\n# @secrets: A, B\nresult = "hi"\n';
    const record = await services.scripts.create('hi.star', source, 'alice');
    expect(record).toMatchObject({
      name: 'hi.star',
      source,
      hash: hashSource(source),
      status: 'pending',
      metadata: { description: 'says hi', secrets: ['A', 'B'] },
      created_at: clock.toISOString(),
      modified_at: clock.toISOString(),
    });
    expect(record.head).toMatch(commitPattern);
    expect(await services.scripts.get('hi.star')).toEqual(record);
    expect(await services.scripts.versions('hi.star')).toEqual([
      { commit: record.head, message: 'created', author: 'alice', timestamp: clock.toISOString() },
    ]);
    expect(readFileSync(path.join(dir, 'hi.star'), 'utf8')).toBe(source);
  });

  it('refuses a bad name, an existing name, an oversized source and one that does not parse', async () => {
    await expect(services.scripts.create('../x.star', 'x = 1\n', 'a')).rejects.toBeInstanceOf(
      BadRequestError,
    );
    await services.scripts.create('dup.star', 'x = 1\n', 'a');
    await expect(services.scripts.create('dup.star', 'x = 2\n', 'a')).rejects.toBeInstanceOf(
      ConflictError,
    );
    const big = `x = "${'a'.repeat(maxSourceBytes)}"\n`;
    await expect(services.scripts.create('big.star', big, 'a')).rejects.toBeInstanceOf(
      BadRequestError,
    );
    const err = await services.scripts.create('bad.star', 'def (:\n', 'a').catch((e) => e);
    expect(err).toBeInstanceOf(InvalidScriptError);
    expect(err).toMatchObject({ details: { line: 1 } });
    for (const name of ['big.star', 'bad.star']) {
      expect(await services.scripts.get(name)).toBeNull();
      expect(existsSync(path.join(dir, name))).toBe(false);
    }
  });

  it('counts the size limit in UTF-8 bytes, not characters', async () => {
    // Two bytes per character: under the limit in characters, over it in bytes.
    const source = `x = "${'é'.repeat(maxSourceBytes / 2)}"\n`;
    expect(source.length).toBeLessThan(maxSourceBytes);
    await expect(services.scripts.create('wide.star', source, 'a')).rejects.toBeInstanceOf(
      BadRequestError,
    );
  });

  it('updates to a new pending version that keeps the approved hash, newest version first', async () => {
    const first = await services.scripts.create('up.star', 'x = 1\n', 'alice');
    await services.scripts.approve('up.star', 'admin');
    const next = await services.scripts.update('up.star', 'x = 2\n', 'bob', 'tweak');
    expect(next).toMatchObject({
      status: 'pending',
      hash: hashSource('x = 2\n'),
      approved_hash: hashSource('x = 1\n'),
    });
    expect(next).not.toHaveProperty('approved_by');
    const versions = await services.scripts.versions('up.star');
    expect(versions.map((v) => [v.author, v.message])).toEqual([
      ['bob', 'tweak'],
      ['alice', 'created'],
    ]);
    expect(versions[1]?.commit).toBe(first.head);
    expect(readFileSync(path.join(dir, 'up.star'), 'utf8')).toBe('x = 2\n');
  });

  it('refuses an update of a missing script before looking at the source', async () => {
    await expect(services.scripts.update('ghost.star', 'def (:\n', 'a')).rejects.toBeInstanceOf(
      ScriptNotFoundError,
    );
    await services.scripts.create('keep.star', 'x = 1\n', 'a');
    await expect(services.scripts.update('keep.star', 'def (:\n', 'a')).rejects.toBeInstanceOf(
      InvalidScriptError,
    );
    expect(await services.scripts.versions('keep.star')).toHaveLength(1);
  });

  it('restores an old version as a new pending version', async () => {
    const first = await services.scripts.create('rs.star', 'x = 1\n', 'alice');
    await services.scripts.update('rs.star', 'x = 2\n', 'alice');
    await services.scripts.approve('rs.star', 'admin');
    const restored = await services.scripts.restore('rs.star', first.head, 'bob');
    expect(restored).toMatchObject({ source: 'x = 1\n', status: 'pending' });
    expect(restored.head).not.toBe(first.head);
    const [newest] = await services.scripts.versions('rs.star');
    expect(newest).toMatchObject({ author: 'bob', message: `restored from ${first.head}` });
    expect(readFileSync(path.join(dir, 'rs.star'), 'utf8')).toBe('x = 1\n');
    await expect(services.scripts.restore('rs.star', '0'.repeat(40), 'bob')).rejects.toBeInstanceOf(
      NotFoundError,
    );
    await expect(services.scripts.restore('none.star', first.head, 'b')).rejects.toBeInstanceOf(
      ScriptNotFoundError,
    );
  });

  it('approves the reviewed hash only, and approving twice keeps the first approval', async () => {
    await services.scripts.create('ap.star', 'x = 1\n', 'alice');
    await expect(
      services.scripts.approve('ap.star', 'admin', hashSource('x = 0\n')),
    ).rejects.toBeInstanceOf(ScriptRefusedError);
    expect((await services.scripts.mustGet('ap.star')).status).toBe('pending');
    const once = await services.scripts.approve('ap.star', 'admin', hashSource('x = 1\n'));
    expect(once).toMatchObject({ status: 'approved', approved_by: 'admin' });
    const twice = await services.scripts.approve('ap.star', 'other');
    expect(twice.approved_by).toBe('admin');
    expect(await services.scripts.mustGet('ap.star')).toEqual(once);
  });

  it('rejects with a reason, and refuses a second rejection', async () => {
    await services.scripts.create('rj.star', 'x = 1\n', 'alice');
    await services.scripts.approve('rj.star', 'admin');
    const rejected = await services.scripts.reject('rj.star', 'admin', 'unsafe');
    expect(rejected).toMatchObject({ status: 'rejected', rejected_by: 'admin', reason: 'unsafe' });
    expect(rejected).not.toHaveProperty('approved_hash');
    await expect(services.scripts.reject('rj.star', 'admin', 'again')).rejects.toBeInstanceOf(
      ConflictError,
    );
  });

  it('tells which script each committed change touched, and nothing for a refused one', async () => {
    const forgotten: string[] = [];
    const scripts = createScriptService({
      store: createScriptRepository(redis),
      mirror: createFileMirror(dir),
      log: silent,
      signer: testSigner,
      trail: memoryTrail(),
      forget: (name) => void forgotten.push(name),
    });
    await scripts.create('fg.star', 'x = 1\n', 'alice');
    await scripts.approve('fg.star', 'admin');
    // Approving again changes nothing, so nothing is told.
    await scripts.approve('fg.star', 'admin');
    await expect(scripts.create('fg.star', 'x = 1\n', 'alice')).rejects.toBeInstanceOf(
      ConflictError,
    );
    const [first] = await scripts.versions('fg.star');
    await scripts.update('fg.star', 'x = 2\n', 'alice');
    await scripts.restore('fg.star', first?.commit ?? '', 'alice');
    await scripts.reject('fg.star', 'admin', 'no');
    await scripts.remove('fg.star');
    expect(forgotten).toEqual(Array(6).fill('fg.star'));
  });

  it('answers script_not_found for versions, approval, rejection and removal of a missing script', async () => {
    await expect(services.scripts.mustGet('none.star')).rejects.toBeInstanceOf(ScriptNotFoundError);
    await expect(services.scripts.versions('none.star')).rejects.toBeInstanceOf(
      ScriptNotFoundError,
    );
    await expect(services.scripts.approve('none.star', 'a')).rejects.toBeInstanceOf(
      ScriptNotFoundError,
    );
    await expect(services.scripts.reject('none.star', 'a', 'r')).rejects.toBeInstanceOf(
      ScriptNotFoundError,
    );
    await expect(services.scripts.remove('none.star')).rejects.toBeInstanceOf(ScriptNotFoundError);
  });

  it('keeps the script in Redis when its file cannot be written, and warns', async () => {
    const lines: string[] = [];
    const log = pino({ level: 'warn' }, { write: (line: string) => lines.push(line) });
    // The mirror directory sits below a file: every write fails.
    const blocker = path.join(root, 'blocker');
    writeFileSync(blocker, '');
    const broken = serviceOn(redis, log, path.join(blocker, 'scripts'));
    const record = await broken.create('nofile.star', 'x = 1\n', 'a');
    expect(await services.scripts.get('nofile.star')).toEqual(record);
    expect(lines.map((l) => (JSON.parse(l) as { msg: string }).msg)).toEqual([
      'could not write the script file mirror',
    ]);
    // The next reload of a healthy process writes the missing file back.
    expect((await services.scripts.reloadFromDisk()).written).toEqual(['nofile.star']);
    expect(readFileSync(path.join(dir, 'nofile.star'), 'utf8')).toBe('x = 1\n');
  });
});

describe('reloadFromDisk', () => {
  afterEach(() => {
    for (const name of ['bad.star', 'bad name.star', 'broke.star', 'notes.txt']) {
      rmSync(path.join(dir, name), { force: true });
    }
  });

  it('imports new and changed files as pending, reports invalid ones, writes back missing ones', async () => {
    await services.scripts.create('kept.star', 'result = 1\n', 'admin');
    await services.scripts.approve('kept.star', 'admin');
    await services.scripts.create('changed.star', 'result = 1\n', 'admin');
    await services.scripts.approve('changed.star', 'admin');
    await services.scripts.create('lost.star', 'result = "lost"\n', 'admin');

    writeFileSync(path.join(dir, 'new.star'), '# @description: from disk\nresult = 2\n');
    writeFileSync(path.join(dir, 'changed.star'), 'result = 3\n');
    writeFileSync(path.join(dir, 'bad.star'), 'def (:\n');
    writeFileSync(path.join(dir, 'bad name.star'), 'result = 1\n');
    writeFileSync(path.join(dir, 'notes.txt'), 'not a script');
    rmSync(path.join(dir, 'lost.star'));

    const report = await services.scripts.reloadFromDisk();
    expect(report.created).toEqual(['new.star']);
    expect(report.updated).toEqual(['changed.star']);
    expect(report.unchanged).toContain('kept.star');
    expect(report.written).toEqual(['lost.star']);
    expect(report.errors.map((e) => e.name).sort()).toEqual(['bad name.star', 'bad.star']);
    expect(report.errors.find((e) => e.name === 'bad.star')?.message).toMatch(/bad\.star:1:/);

    const created = await services.scripts.mustGet('new.star');
    expect(created).toMatchObject({ status: 'pending', metadata: { description: 'from disk' } });
    const versions = await services.scripts.versions('new.star');
    expect(versions[0]).toMatchObject({
      author: 'filesystem',
      message: 'imported from filesystem',
    });
    expect((await services.scripts.mustGet('changed.star')).status).toBe('pending');
    expect((await services.scripts.mustGet('kept.star')).status).toBe('approved');
    expect(await services.scripts.store.get('bad.star')).toBeNull();
    expect(readFileSync(path.join(dir, 'lost.star'), 'utf8')).toBe('result = "lost"\n');
  });

  it('leaves a stored script whose file does not parse as it is, and reports the file', async () => {
    await services.scripts.create('broke.star', 'result = 1\n', 'admin');
    await services.scripts.approve('broke.star', 'admin');
    writeFileSync(path.join(dir, 'broke.star'), 'def (:\n');
    const report = await services.scripts.reloadFromDisk();
    expect(report.errors.map((e) => e.name)).toEqual(['broke.star']);
    expect(report.written).not.toContain('broke.star');
    expect(await services.scripts.mustGet('broke.star')).toMatchObject({
      status: 'approved',
      source: 'result = 1\n',
    });
    // The file is the user's edit in progress: it is not overwritten from the store.
    expect(readFileSync(path.join(dir, 'broke.star'), 'utf8')).toBe('def (:\n');
  });

  it('changes nothing on a second reload', async () => {
    await services.scripts.reloadFromDisk();
    const again = await services.scripts.reloadFromDisk();
    expect(again).toMatchObject({ created: [], updated: [], written: [], errors: [] });
  });

  it('imports a change once when several processes reload together', async () => {
    await services.scripts.create('shared.star', 'result = 1\n', 'admin');
    writeFileSync(path.join(dir, 'shared.star'), 'result = 2\n');
    const connection = storeRedis(prefix);
    try {
      const other = serviceOn(connection);
      await Promise.all([services.scripts.reloadFromDisk(), other.reloadFromDisk()]);
    } finally {
      connection.disconnect();
    }
    expect(await services.scripts.versions('shared.star')).toHaveLength(2);
  });

  it('creates a new file once when several processes reload together', async () => {
    writeFileSync(path.join(dir, 'fresh.star'), 'result = 1\n');
    const connection = storeRedis(prefix);
    try {
      const other = serviceOn(connection);
      const reports = await Promise.all([
        services.scripts.reloadFromDisk(),
        other.reloadFromDisk(),
      ]);
      expect(reports.flatMap((r) => r.errors)).toEqual([]);
    } finally {
      connection.disconnect();
    }
    expect(await services.scripts.versions('fresh.star')).toHaveLength(1);
  });

  it('asks the store for every file it compares at once, not one file after another', async () => {
    const names = Array.from({ length: 6 }, (_, i) => `many${i}.star`);
    for (const [i, name] of names.entries()) writeFileSync(path.join(dir, name), `result = ${i}\n`);
    const store = createScriptRepository(redis);
    let inFlight = 0;
    let most = 0;
    const service = createScriptService({
      store: {
        ...store,
        async get(name) {
          most = Math.max(most, ++inFlight);
          try {
            return await store.get(name);
          } finally {
            inFlight--;
          }
        },
      },
      mirror: createFileMirror(dir),
      log: silent,
      signer: testSigner,
      trail: memoryTrail(),
      now: () => clock,
    });
    try {
      expect((await service.reloadFromDisk()).created).toEqual(expect.arrayContaining(names));
      most = 0;
      const report = await service.reloadFromDisk();
      expect(report).toMatchObject({ created: [], updated: [], errors: [] });
      expect(report.unchanged).toEqual(expect.arrayContaining(names));
      expect(most).toBeGreaterThanOrEqual(names.length);
    } finally {
      for (const name of names) await services.scripts.remove(name);
    }
  });

  it('removes the file with the script', async () => {
    await services.scripts.create('bye.star', 'result = 1\n', 'admin');
    expect(existsSync(path.join(dir, 'bye.star'))).toBe(true);
    await services.scripts.remove('bye.star');
    expect(existsSync(path.join(dir, 'bye.star'))).toBe(false);
    expect(await services.scripts.get('bye.star')).toBeNull();
  });
});
