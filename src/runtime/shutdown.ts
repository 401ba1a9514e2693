import type { Context } from './context.js';

/**
 * SIGTERM/SIGINT: health flips to 503 at once, then `stop` drains (in-flight requests finish,
 * workers close) and the process exits 0. A stuck close cannot hold it past `graceMs`.
 */
export function installShutdown(ctx: Context, stop: () => Promise<void>, graceMs = 9_000): void {
  let stopping = false;
  const handler = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    ctx.lifecycle.markStopping();
    ctx.log.info({ signal }, 'shutting down');
    const force = setTimeout(() => {
      ctx.log.error('shutdown took too long; exiting');
      process.exit(1);
    }, graceMs);
    force.unref();
    stop()
      .then(() => ctx.close())
      .then(
        () => process.exit(0),
        (err: unknown) => {
          ctx.log.error({ err }, 'error during shutdown');
          process.exit(1);
        },
      );
  };
  process.once('SIGTERM', handler);
  process.once('SIGINT', handler);
}
