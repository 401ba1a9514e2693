import { boot, type BootOptions } from '../runtime/bootstrap.js';
import { createServices } from '../runtime/services.js';
import { createToolRateLimiter } from './rate-limit.js';
import { createMcpServer } from './server.js';
import { GuardedStdioTransport } from './stdio-transport.js';
import { createToolset, toolsetDeps } from './toolset.js';

/**
 * `steward mcp`: the engine's parent process is trusted (DESIGN.md); stdout carries protocol
 * messages only, so logs go to stderr and stray console output is redirected there too.
 */
export async function runMcpStdio(options: Pick<BootOptions, 'configFile' | 'env'>): Promise<void> {
  console.log = console.info = console.debug = (...args: unknown[]) => console.error(...args);
  const ctx = await boot({ ...options, allowEmbeddedRedis: false, logToStderr: true });
  const services = await createServices(ctx);
  const toolset = createToolset(ctx, toolsetDeps(services));
  const server = createMcpServer(toolset.registry, toolset.makeContext);
  const transport = new GuardedStdioTransport(
    process.stdin,
    process.stdout,
    createToolRateLimiter(ctx.config.mcp.rate_limit),
  );
  let stopping = false;
  const shutdown = async () => {
    if (stopping) return;
    stopping = true;
    await server.close().catch(() => {});
    await ctx.close();
    process.exit(0);
  };
  transport.onclose = () => void shutdown();
  process.once('SIGTERM', () => void shutdown());
  process.once('SIGINT', () => void shutdown());
  await server.connect(transport);
  ctx.lifecycle.setCheck('mcp_server', true);
  ctx.lifecycle.markReady();
}
