import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { expect } from 'vitest';
import { freePort } from '../../src/store/embedded-redis.js';
import { isolatedEnv, mockProvider, opencodeBin } from './opencode.js';
import { cliPath } from './processes.js';
import { dropPrefix, testRedisUrl, uniquePrefix } from './redis.js';

/** Debian's Chromium (`apt-get install chromium`; .ci/run installs it). Never a downloaded build. */
export const CHROMIUM = process.env.STEWARD_TEST_CHROMIUM ?? '/usr/bin/chromium';

export const SCREENSHOTS = path.resolve(import.meta.dirname, '../ui/screenshots');

/** Headless Chromium that talks to nothing but loopback. */
export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(`${CHROMIUM} is missing: apt-get install -y chromium`);
  }
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--headless=new',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--no-first-run',
      '--disable-sync',
      '--disable-dev-shm-usage',
    ],
  });
}

export interface RunningSteward {
  base: string;
  dir: string;
  /** Its Redis key prefix, for a test that reaches the store directly. */
  prefix: string;
  child: ChildProcess;
  output(): string;
  /** Resolves once the supervised engine answers (`steward_engine_up 1`). */
  engineUp(timeoutMs?: number): Promise<void>;
  stop(): Promise<void>;
}

/**
 * A real `steward start` (API, workers, scheduler and the supervised OpenCode talking to the
 * fake model at `modelURL`) on a free loopback port, on the test Redis under a fresh prefix.
 * `extra` replaces top-level config sections.
 */
export async function startSteward(
  modelURL: string | null,
  extra: Record<string, unknown> = {},
): Promise<RunningSteward> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'steward-ui-'));
  const engineHome = path.join(dir, 'engine-home');
  mkdirSync(engineHome);
  const port = await freePort();
  const prefix = uniquePrefix('ui');
  const config = {
    server: { host: '127.0.0.1', port },
    redis: { url: testRedisUrl(), prefix, embedded: 'never' },
    data_dir: path.join(dir, 'data'),
    workspace: path.join(dir, 'workspace'),
    log: { level: process.env.TEST_LOG_LEVEL ?? 'warn' },
    // A browser journey makes more calls a minute than a person would.
    admin: { rate_limit: { api_per_minute: 2000, login_per_minute: 50 } },
    // Without a model URL: no engine (sessions and agent schedules then answer 503). Not even
    // the installed OpenCode, which `steward start` would otherwise supervise: a page that
    // shows "engine unavailable" raced its start under load, and its package install raced the
    // removal of this directory.
    ...(modelURL
      ? {
          engine: {
            command: [opencodeBin],
            config: {
              provider: mockProvider(modelURL),
              model: 'mock/echo',
              small_model: 'mock/echo',
            },
            env: isolatedEnv(engineHome),
          },
        }
      : { engine: { autostart: false } }),
    ...extra,
  };
  // JSON is YAML.
  writeFileSync(path.join(dir, 'steward.yaml'), JSON.stringify(config, null, 2));
  const child = spawn(process.execPath, [cliPath, 'start', '--config', 'steward.yaml'], {
    cwd: dir,
    env: { PATH: process.env.PATH ?? '', HOME: dir },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const keep = (chunk: Buffer) => {
    out += chunk.toString();
    if (process.env.TEST_LOG_LEVEL) process.stderr.write(chunk);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const base = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 90_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`steward start exited: ${out}`);
    const reason = await fetch(`${base}/health`)
      .then((r) => r.json() as Promise<{ reason?: string; status?: string }>)
      .then((b) => b.reason ?? b.status)
      .catch(() => 'down');
    if (reason !== 'down' && reason !== 'starting') break;
    if (Date.now() > deadline) throw new Error(`steward start did not come up: ${out}`);
    await new Promise((r) => setTimeout(r, 200));
  }
  return {
    base,
    dir,
    prefix,
    child,
    async engineUp(timeoutMs = 60_000) {
      const until = Date.now() + timeoutMs;
      while (Date.now() < until) {
        const text = await fetch(`${base}/metrics/prometheus`)
          .then((r) => r.text())
          .catch(() => '');
        if (/^steward_engine_up 1$/m.test(text)) return;
        await new Promise((r) => setTimeout(r, 250));
      }
      throw new Error(`the engine did not connect: ${out}`);
    },
    output: () => out,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((r) => child.once('exit', r));
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), 12_000);
        await exited;
        clearTimeout(timer);
      }
      await dropPrefix(prefix);
      // The engine's process group gets SIGTERM with Steward; a package install of OpenCode's
      // may still be writing its config directory for a moment after the engine itself exited.
      rmSync(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
    },
  };
}

/** Saves a screenshot of the screen a test checks, for a person to look at. */
export async function screenshot(page: Page, name: string): Promise<string> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  // From the top: a full-page capture of a scrolled page repeats the fixed header mid-page.
  await page.evaluate('window.scrollTo(0, 0)');
  const file = path.join(SCREENSHOTS, `${name}.png`);
  await page.screenshot({ path: file, fullPage: true });
  return file;
}

const axeSource = readFileSync(
  path.resolve(import.meta.dirname, '../../node_modules/axe-core/axe.min.js'),
  'utf8',
);

interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: Array<{ target: string[]; failureSummary?: string }>;
}

/**
 * axe-core on the current screen; fails on any serious or critical violation. axe is evaluated
 * through the DevTools protocol, so the page's own CSP (no inline scripts) stays in force.
 */
export async function expectAccessible(page: Page, screen: string): Promise<void> {
  await page.evaluate(`${axeSource};undefined`);
  // Evaluated in the page (this file is compiled without the DOM types).
  const violations = (await page.evaluate(
    `axe.run(document, { resultTypes: ['violations'] }).then((r) => r.violations)`,
  )) as AxeViolation[];
  const serious = violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map(
      (v) =>
        `${v.id} (${v.impact}): ${v.help} at ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`,
    );
  expect(serious, `axe on ${screen}`).toEqual([]);
}
