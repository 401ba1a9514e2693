import type { Context } from './context.js';

/**
 * The one way every role stops: health flips to 503 at once, then `stop` drains (in-flight
 * requests finish, workers close), the context closes and the process exits 0. A stuck close
 * cannot hold it past `graceMs`. SIGTERM and SIGINT (Ctrl-C) call it, and SIGHUP: a closed
 * terminal would otherwise end the process at once and leave the engine it supervises running.
 * So may a role's own end (the MCP stdio server when the engine closes stdin) through the
 * returned function.
 */
/** What the context's closers get once the role has stopped. */
const closeBudgetMs = 1_000;

export function installShutdown(
  ctx: Pick<Context, 'lifecycle' | 'log' | 'close'>,
  stop: () => Promise<void>,
  graceMs = 9_800,
): (reason: string) => void {
  let stopping = false;
  const shutdown = (reason: string) => {
    if (stopping) return;
    stopping = true;
    ctx.lifecycle.markStopping();
    ctx.log.info({ reason }, 'shutting down');
    const force = setTimeout(() => {
      ctx.log.error('shutdown took too long; exiting');
      process.exit(1);
    }, graceMs);
    force.unref();
    stop()
      // A closer stuck on an unreachable Redis must not turn a drained shutdown into exit 1.
      .then(() => Promise.race([ctx.close(), new Promise((r) => setTimeout(r, closeBudgetMs))]))
      .then(
        () => process.exit(0),
        (err: unknown) => {
          ctx.log.error({ err }, 'error during shutdown');
          process.exit(1);
        },
      );
  };
  process.once('SIGTERM', () => shutdown('SIGTERM'));
  process.once('SIGINT', () => shutdown('SIGINT'));
  process.once('SIGHUP', () => shutdown('SIGHUP'));
  return shutdown;
}
