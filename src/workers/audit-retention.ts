import type { AuditLog } from '../runtime/audit-log.js';
import type { Context } from '../runtime/context.js';

/** How often a worker prunes the audit log; entries a little past retention do no harm. */
const everyMs = 60 * 60_000;
/** The first prune waits for start-up to settle. */
const firstAfterMs = 30_000;

/**
 * Drops audit entries older than `audit.retention`, in every worker process: a prune is one Lua
 * call that moves the chain's anchor and trims, so workers pruning at once agree.
 */
export function startAuditRetention(ctx: Context, audit: Pick<AuditLog, 'prune'>): () => void {
  const prune = () =>
    void audit
      .prune(ctx.config.audit.retention)
      .then((dropped) => {
        if (dropped > 0) ctx.log.info({ dropped }, 'pruned old audit entries');
      })
      .catch((err: unknown) => ctx.log.warn({ err }, 'could not prune the audit log'));
  const first = setTimeout(prune, firstAfterMs);
  const timer = setInterval(prune, everyMs);
  first.unref();
  timer.unref();
  return () => {
    clearTimeout(first);
    clearInterval(timer);
  };
}
