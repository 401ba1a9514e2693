import { spawn } from 'node:child_process';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';

const shutdownModule = pathToFileURL(
  path.resolve(__dirname, '../../dist/runtime/shutdown.js'),
).href;
const lifecycleModule = pathToFileURL(
  path.resolve(__dirname, '../../dist/runtime/lifecycle.js'),
).href;

/**
 * A child process that installs the shutdown path over a small context and prints what happens
 * (`ready`, `stop`, `phase:<phase>`, `closed`), so a real signal can be sent to it.
 */
function child(stop: string, graceMs = 9_000) {
  const script = `
    const { installShutdown } = await import(${JSON.stringify(shutdownModule)});
    const { createLifecycle } = await import(${JSON.stringify(lifecycleModule)});
    const say = (line) => process.stdout.write(line + '\\n');
    const lifecycle = createLifecycle();
    lifecycle.markReady();
    const log = { info() {}, warn() {}, error(...args) { say('error'); } };
    const ctx = { lifecycle, log, close: async () => say('closed') };
    const shutdown = installShutdown(ctx, async () => {
      say('phase:' + lifecycle.phase);
      ${stop}
    }, ${graceMs});
    globalThis.shutdown = shutdown;
    setInterval(() => {}, 1000);
    say('ready');
  `;
  const proc = spawn(process.execPath, ['--input-type=module', '-e', script], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  proc.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  const ready = new Promise<void>((resolve, reject) => {
    proc.stdout.on('data', () => out.includes('ready\n') && resolve());
    proc.once('exit', () => reject(new Error(`exited early: ${out}`)));
  });
  const exited = new Promise<number | null>((resolve) => proc.once('exit', resolve));
  return { proc, ready, exited, lines: () => out.trim().split('\n') };
}

describe('shutdown', () => {
  it('on SIGTERM marks the process stopping, runs stop, closes the context and exits 0', async () => {
    const c = child(`say('stop');`);
    await c.ready;
    c.proc.kill('SIGTERM');
    expect(await c.exited).toBe(0);
    expect(c.lines()).toEqual(['ready', 'phase:stopping', 'stop', 'closed']);
  });

  it('on SIGINT does the same', async () => {
    const c = child(`say('stop');`);
    await c.ready;
    c.proc.kill('SIGINT');
    expect(await c.exited).toBe(0);
    expect(c.lines()).toEqual(['ready', 'phase:stopping', 'stop', 'closed']);
  });

  it('on SIGHUP (its terminal closed) does the same, so the engine it supervises stops too', async () => {
    const c = child(`say('stop');`);
    await c.ready;
    c.proc.kill('SIGHUP');
    expect(await c.exited).toBe(0);
    expect(c.lines()).toEqual(['ready', 'phase:stopping', 'stop', 'closed']);
  });

  it('runs stop once when a second signal arrives while it drains', async () => {
    const c = child(`say('stop'); await new Promise((r) => setTimeout(r, 300));`);
    await c.ready;
    c.proc.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 50));
    c.proc.kill('SIGINT');
    expect(await c.exited).toBe(0);
    expect(c.lines().filter((l) => l === 'stop')).toHaveLength(1);
  });

  it('exits 1 without closing when stop fails', async () => {
    const c = child(`throw new Error('drain failed');`);
    await c.ready;
    c.proc.kill('SIGTERM');
    expect(await c.exited).toBe(1);
    expect(c.lines()).toEqual(['ready', 'phase:stopping', 'error']);
  });

  it('exits 1 once the grace period is over when stop hangs', async () => {
    const c = child(`await new Promise(() => {});`, 300);
    await c.ready;
    const started = Date.now();
    c.proc.kill('SIGTERM');
    expect(await c.exited).toBe(1);
    expect(Date.now() - started).toBeGreaterThanOrEqual(250);
    expect(c.lines()).toEqual(['ready', 'phase:stopping', 'error']);
  });
});
