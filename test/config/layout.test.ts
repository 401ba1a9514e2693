import { mkdirSync, mkdtempSync, symlinkSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.js';
import { ConfigError } from '../../src/errors/config-error.js';

const load = (cwd: string, overrides: Record<string, unknown>) =>
  loadConfig({ cwd, env: {}, overrides });

describe('tool roots and secrets', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'steward-layout-'));

  it('accepts the default layout (data and workspace side by side)', () => {
    expect(load(dir, {}).paths.data).toBe(path.join(dir, 'data'));
  });

  it('refuses a data dir inside the workspace, naming both paths', () => {
    const run = () => load(dir, { workspace: '.', data_dir: './data' });
    expect(run).toThrow(ConfigError);
    expect(run).toThrow(
      `data_dir (${path.join(dir, 'data')}) lies inside the workspace (${dir}), where the file tools could read it`,
    );
  });

  it('refuses a data dir inside the memory dir or the vault', () => {
    expect(() =>
      load(dir, { workspace: './ws', 'memory.dir': path.join(dir, 'mem'), data_dir: './mem/d' }),
    ).toThrow(/inside the memory dir/);
    expect(() => load(dir, { 'vault.path': './notes', data_dir: './notes/.steward' })).toThrow(
      /data_dir .* lies inside the vault/,
    );
  });

  it("refuses a vault (and so its .git) inside the workspace, but not the vault's own .git", () => {
    expect(() => load(dir, { workspace: './ws', 'vault.path': './ws/vault' })).toThrow(
      /the vault's \.git .* lies inside the workspace/,
    );
    expect(load(dir, { workspace: './ws', 'vault.path': './vault' }).paths.vault).toBe(
      path.join(dir, 'vault'),
    );
  });

  it('sees through a symbolic link that puts the data dir inside the workspace', () => {
    mkdirSync(path.join(dir, 'ws2', 'real-data'), { recursive: true });
    symlinkSync(path.join(dir, 'ws2', 'real-data'), path.join(dir, 'linked-data'));
    expect(() => load(dir, { workspace: './ws2', data_dir: './linked-data' })).toThrow(
      /data_dir .* lies inside the workspace/,
    );
  });
});
