import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toolsetDeps } from '../../src/cli/compose.js';
import { createToolset, type Toolset } from '../../src/mcp/toolset.js';
import { createTestApp, type TestApp } from '../support/app.js';

/**
 * Who wrote a script imported from the scripts directory: a file whose text the tool server
 * wrote (`workspace_write`) is imported by `script_reload` (and the start-up scan) with author
 * `mcp`; a file changed afterwards by other hands, or written by them, with author `filesystem`.
 */
describe('provenance of scripts written through the tool server', { timeout: 30_000 }, () => {
  let t: TestApp;
  let tools: Toolset;
  let dir: string;

  beforeAll(async () => {
    t = await createTestApp({}, 'provenance');
    tools = createToolset(t.ctx, toolsetDeps(t.services));
    dir = t.ctx.config.paths.scripts;
    mkdirSync(dir, { recursive: true });
  });
  afterAll(async () => {
    await t?.close();
  });

  const call = async (name: string, args: Record<string, unknown>) => {
    const result = await tools.registry.call(
      name,
      args,
      tools.makeContext(new AbortController().signal),
    );
    if (result.isError) throw new Error(JSON.stringify(result.content));
    return result.content[0]?.text ?? '';
  };
  const reload = async () =>
    JSON.parse(await call('script_reload', {})) as Record<string, string[]>;
  const newest = async (name: string) => (await t.services.scripts.versions(name))[0];

  it('imports a file the AI wrote with author mcp, and the same file edited by hand with filesystem', async () => {
    await call('workspace_write', {
      path: 'scripts/ai.star',
      content: 'def main():\n    return "from the AI"\n',
    });
    expect((await reload()).created).toContain('ai.star');
    expect(await newest('ai.star')).toMatchObject({
      author: 'mcp',
      message: expect.stringMatching(/written by the AI/),
    });

    // Someone edits the file afterwards: the text is no longer the one the tool wrote.
    writeFileSync(path.join(dir, 'ai.star'), 'def main():\n    return "by hand"\n');
    expect((await reload()).updated).toEqual(['ai.star']);
    expect(await newest('ai.star')).toMatchObject({ author: 'filesystem' });

    // The AI writes it again.
    await call('workspace_write', {
      path: 'scripts/ai.star',
      content: 'def main():\n    return "AI again"\n',
    });
    expect((await reload()).updated).toEqual(['ai.star']);
    expect(await newest('ai.star')).toMatchObject({ author: 'mcp' });
  });

  it('imports a file written by other hands with author filesystem', async () => {
    writeFileSync(path.join(dir, 'hand.star'), 'def main():\n    return 1\n');
    expect((await reload()).created).toEqual(['hand.star']);
    expect(await newest('hand.star')).toMatchObject({ author: 'filesystem' });
  });

  it('knows the AI wrote a script through a link to the scripts directory', async () => {
    symlinkSync(dir, path.join(t.ctx.config.paths.workspace, 'alias'));
    await call('workspace_write', { path: 'alias/linked.star', content: 'result = 2\n' });
    expect((await reload()).created).toEqual(['linked.star']);
    expect(await newest('linked.star')).toMatchObject({ author: 'mcp' });
  });

  it('is not fooled by text that changes on its way to the file (a lone surrogate)', async () => {
    const content = '# odd \uD800 comment\nresult = 3\n';
    await call('workspace_write', { path: 'scripts/odd.star', content });
    expect(readFileSync(path.join(dir, 'odd.star'), 'utf8')).toContain('\uFFFD');
    expect((await reload()).created).toEqual(['odd.star']);
    expect(await newest('odd.star')).toMatchObject({ author: 'mcp' });
  });

  it('records nothing for files outside the scripts directory', async () => {
    await call('workspace_write', { path: 'notes/x.star', content: 'result = 4\n' });
    await call('workspace_write', { path: 'scripts/sub/y.star', content: 'result = 5\n' });
    expect(await t.services.scripts.store.toolWrites(['x.star', 'y.star'])).toEqual([null, null]);
  });
});
