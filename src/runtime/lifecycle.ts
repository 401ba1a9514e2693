/**
 * Process state shared by the health endpoints and the shutdown path: `/ready` is false until
 * `markReady()`, and `/healthz` flips to 503 the moment a shutdown begins.
 */
export type Phase = 'starting' | 'ready' | 'stopping';

export interface Lifecycle {
  readonly phase: Phase;
  readonly startedAt: number;
  markReady(): void;
  markStopping(): void;
  /** Components that report readiness (e.g. `mcp_server`). */
  setCheck(name: string, ok: boolean): void;
  check(name: string): boolean;
}

export function createLifecycle(now = Date.now()): Lifecycle {
  let phase: Phase = 'starting';
  const checks = new Map<string, boolean>();
  return {
    get phase() {
      return phase;
    },
    startedAt: now,
    markReady() {
      if (phase === 'starting') phase = 'ready';
    },
    markStopping() {
      phase = 'stopping';
    },
    setCheck(name, ok) {
      checks.set(name, ok);
    },
    check(name) {
      return checks.get(name) ?? false;
    },
  };
}
