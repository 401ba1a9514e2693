import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { VERSION } from '../../src/version.js';
import { cliPath } from '../support/processes.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'steward-main-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function steward(...args: string[]) {
  const res = spawnSync(process.execPath, [cliPath, ...args], {
    cwd: dir,
    env: { PATH: process.env.PATH ?? '', HOME: dir },
    encoding: 'utf8',
    timeout: 20_000,
  });
  return { code: res.status, stdout: res.stdout, stderr: res.stderr };
}

describe('steward command line', () => {
  it('`version` and `--version` print the version', () => {
    expect(steward('version')).toEqual({ code: 0, stdout: `${VERSION}\n`, stderr: '' });
    expect(steward('--version')).toMatchObject({ code: 0, stdout: `${VERSION}\n` });
  });

  it('`--help` lists every role and command', () => {
    const help = steward('--help');
    expect(help.code).toBe(0);
    for (const command of [
      'start',
      'api',
      'worker',
      'mcp',
      'engine',
      'secrets',
      'starlark',
      'version',
    ]) {
      expect(help.stdout).toMatch(new RegExp(`^\\s+${command}\\b`, 'm'));
    }
  });

  it('`engine` says what it lacks instead of starting an engine nobody can use', () => {
    expect(steward('engine').stderr).toMatch(/required option '--mcp-url <url>'/);
    expect(steward('engine', '--mcp-url', 'api:8080/mcp')).toMatchObject({
      code: 1,
      stderr: 'steward: --mcp-url must be an http(s) URL, not "api:8080/mcp"\n',
    });
    expect(steward('engine', '--mcp-url', 'http://api:8080/mcp', '--port', '0')).toMatchObject({
      code: 1,
      stderr: 'steward: --port must be a port number, not "0"\n',
    });
    const noToken = steward('engine', '--mcp-url', 'http://api:8080/mcp');
    expect(noToken.code).toBe(1);
    expect(noToken.stderr).toMatch(/set mcp\.http\.token \(STEWARD_MCP_TOKEN\)/);
  });

  it('refuses an unknown command with exit 1', () => {
    const res = steward('nonsense');
    expect(res.code).toBe(1);
    expect(res.stderr).toMatch(/unknown command 'nonsense'/);
  });

  it('reports a bad config file and exits 1 before connecting to anything', () => {
    const file = path.join(dir, 'bad.yaml');
    writeFileSync(file, 'server:\n  port: not-a-port\n');
    const res = steward('api', '--config', file);
    expect(res.code).toBe(1);
    expect(res.stdout).toBe('');
    expect(res.stderr).toMatch(
      /^steward: invalid configuration in .*bad\.yaml:\n {2}server\.port\b/,
    );
  });

  // An invalid value was attributed to the environment variable that could set its key
  // (`server.port (from STEWARD_PORT)`) even when that variable was unset and the value came
  // from the file, sending the operator to the wrong place.
  it('names the environment variable only when it supplied the bad value', () => {
    const file = path.join(dir, 'bad-port.yaml');
    writeFileSync(file, 'server:\n  port: not-a-port\n');
    const res = steward('api', '--config', file);
    expect(res.stderr).not.toContain('STEWARD_PORT');
  });

  it('reports a missing config file and exits 1', () => {
    const res = steward('worker', '-c', path.join(dir, 'nope.yaml'));
    expect(res.code).toBe(1);
    expect(res.stderr).toMatch(/^steward: .*nope\.yaml/);
  });

  it('`starlark check` runs locally without a config', () => {
    const file = path.join(dir, 'ok.star');
    writeFileSync(file, 'def main():\n    return 1\n');
    expect(steward('starlark', 'check', file).code).toBe(0);
  });
});
