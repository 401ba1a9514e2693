import { createToolRateLimiter } from './rate-limit.js';
import { createMcpServer } from './server.js';
import { GuardedStdioTransport } from './stdio-transport.js';
import type { Toolset } from './toolset.js';

export interface StdioServer {
  close(): Promise<void>;
}

/**
 * The tool server on this process's stdin/stdout (`steward mcp`, spawned by the AI engine, whose
 * parent process is trusted: DESIGN.md). `onClosed` runs when the engine closes stdin, so the
 * role shuts down through the same path as on SIGTERM.
 */
export async function serveStdio(
  toolset: Toolset,
  limits: { per_second: number; burst: number },
  onClosed: () => void,
): Promise<StdioServer> {
  const server = createMcpServer(toolset.registry, toolset.makeContext);
  const transport = new GuardedStdioTransport(
    process.stdin,
    process.stdout,
    createToolRateLimiter(limits),
  );
  transport.onclose = onClosed;
  await server.connect(transport);
  return {
    async close() {
      await server.close().catch(() => {});
    },
  };
}
