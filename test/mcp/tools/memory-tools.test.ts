import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ToolError } from '../../../src/errors/tool-error.js';
import { memoryRead, memoryTools, memoryWrite } from '../../../src/mcp/tools/memory-tools.js';
import { run, testConfig, testContext } from './tool-context.js';

function setup(overrides: Record<string, unknown> = {}) {
  const config = testConfig(overrides);
  return { config, ctx: testContext(config), ws: config.paths.workspace };
}

describe('memory tools', () => {
  it('defaults to MEMORY.md under the memory folder, and appends', async () => {
    const { config, ctx } = setup();
    expect(await run(memoryRead, {}, ctx)).toBe('(MEMORY.md is empty)');
    await run(memoryWrite, { content: 'likes tea\n' }, ctx);
    await run(memoryWrite, { content: 'lives in Lyon\n', append: true }, ctx);
    expect(readFileSync(path.join(config.paths.memory, 'MEMORY.md'), 'utf8')).toBe(
      'likes tea\nlives in Lyon\n',
    );
    expect(await run(memoryRead, {}, ctx)).toBe('likes tea\nlives in Lyon\n');
    await run(memoryWrite, { file: 'people/ana.md', content: 'Ana' }, ctx);
    expect(await run(memoryRead, { file: 'people/ana.md' }, ctx)).toBe('Ana');
    await run(memoryWrite, { content: 'replaced' }, ctx);
    expect(await run(memoryRead, {}, ctx)).toBe('replaced');
  });

  it('stays inside the memory folder', async () => {
    const { ctx } = setup();
    await expect(run(memoryRead, { file: '../secrets.txt' }, ctx)).rejects.toBeInstanceOf(
      ToolError,
    );
    await expect(run(memoryWrite, { file: '/tmp/x.md', content: 'x' }, ctx)).rejects.toThrow(
      /outside the memory folder/,
    );
  });
});

describe('memory tools, further cases', () => {
  it('offers read and write', () => {
    expect(memoryTools().map((t) => t.name)).toEqual(['memory_read', 'memory_write']);
  });

  it('lives in memory.dir, relative to the workspace, created on first use', async () => {
    const { config, ctx, ws } = setup({ 'memory.dir': 'brain' });
    expect(config.paths.memory).toBe(path.join(ws, 'brain'));
    expect(await run(memoryWrite, { content: 'x' }, ctx)).toBe('wrote 1 bytes to MEMORY.md');
    expect(readFileSync(path.join(ws, 'brain', 'MEMORY.md'), 'utf8')).toBe('x');
  });

  it('reads a named file that is not there yet as empty', async () => {
    const { ctx } = setup();
    expect(await run(memoryRead, { file: 'people/bo.md' }, ctx)).toBe('(people/bo.md is empty)');
  });

  it('still reports other read failures', async () => {
    const { config, ctx } = setup();
    mkdirSync(path.join(config.paths.memory, 'folder'), { recursive: true });
    await expect(run(memoryRead, { file: 'folder' }, ctx)).rejects.toThrow(/is a directory/);
    writeFileSync(path.join(config.paths.memory, 'bin.md'), Buffer.from([0, 1]));
    await expect(run(memoryRead, { file: 'bin.md' }, ctx)).rejects.toThrow(/binary/);
  });

  it('counts what it wrote in UTF-8 bytes and says whether it appended', async () => {
    const { ctx } = setup();
    expect(await run(memoryWrite, { content: 'café' }, ctx)).toBe('wrote 5 bytes to MEMORY.md');
    expect(await run(memoryWrite, { content: '€', append: true }, ctx)).toBe(
      'appended 3 bytes to MEMORY.md',
    );
  });

  it('refuses to save redacted text over a memory', async () => {
    const { ctx } = setup();
    await run(memoryWrite, { content: 'api key: real-value' }, ctx);
    await expect(
      run(memoryWrite, { content: 'api key: [REDACTED:API_KEY]' }, ctx),
    ).rejects.toBeInstanceOf(ToolError);
    expect(await run(memoryRead, {}, ctx)).toBe('api key: real-value');
  });

  it('refuses an empty file name rather than writing the folder itself', () => {
    expect(memoryWrite.inputSchema.safeParse({ file: '', content: 'x' }).success).toBe(false);
  });
});
