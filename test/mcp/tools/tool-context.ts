import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig, type LoadedConfig } from '../../../src/config/load.js';
import { createLogger } from '../../../src/log/logger.js';
import { createEgress } from '../../../src/net/egress.js';
import type { ToolContext, ToolDefinition } from '../../../src/mcp/tool-types.js';

export const tmpDir = (prefix = 'steward-tools-') => mkdtempSync(path.join(os.tmpdir(), prefix));

/** A config rooted in a fresh temp dir; the overrides use dotted keys like `vault.path`. */
export function testConfig(overrides: Record<string, unknown> = {}): LoadedConfig {
  const cwd = tmpDir();
  return loadConfig({ cwd, env: {}, overrides: { workspace: path.join(cwd, 'ws'), ...overrides } });
}

/** Only loopback is admitted, so nothing a test does can leave the machine. */
export function testContext(
  config: LoadedConfig,
  signal = new AbortController().signal,
): ToolContext {
  const egress = createEgress({
    allow: config.egress.allow.length ? config.egress.allow : ['127.0.0.1'],
    timeoutMs: config.egress.timeout,
    maxBodyBytes: config.egress.max_body_bytes,
    maxRedirects: config.egress.max_redirects,
  });
  return { config, logger: createLogger('silent'), egress, signal };
}

/** Runs a tool the way the server does: arguments validated by its schema first. */
export async function run(
  tool: ToolDefinition,
  args: Record<string, unknown>,
  ctx: ToolContext,
): Promise<string> {
  return tool.handler(tool.inputSchema.parse(args), ctx);
}
