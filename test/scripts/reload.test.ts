import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildCore, type Core } from '../../src/cli/compose.js';
import { createTestContext, type TestContext } from '../support/app.js';

let t: TestContext;
let services: Core;
let dir: string;

beforeAll(async () => {
  t = await createTestContext({}, 'reload');
  services = await buildCore(t.ctx);
  dir = t.ctx.config.paths.scripts;
  mkdirSync(dir, { recursive: true });
});
afterAll(async () => {
  await t.close();
});

describe('reloadFromDisk', () => {
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
    const { rmSync } = await import('node:fs');
    rmSync(path.join(dir, 'lost.star'));

    const report = await services.scripts.reloadFromDisk();
    expect(report.created).toEqual(['new.star']);
    expect(report.updated).toEqual(['changed.star']);
    expect(report.unchanged).toEqual(['kept.star']);
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

  it('imports a change once when several processes reload together', async () => {
    await services.scripts.create('shared.star', 'result = 1\n', 'admin');
    writeFileSync(path.join(dir, 'shared.star'), 'result = 2\n');
    const other = await buildCore(t.ctx);
    await Promise.all([services.scripts.reloadFromDisk(), other.scripts.reloadFromDisk()]);
    expect(await services.scripts.versions('shared.star')).toHaveLength(2);
  });

  it('removes the file with the script', async () => {
    await services.scripts.create('bye.star', 'result = 1\n', 'admin');
    expect(existsSync(path.join(dir, 'bye.star'))).toBe(true);
    await services.scripts.remove('bye.star');
    expect(existsSync(path.join(dir, 'bye.star'))).toBe(false);
  });
});
