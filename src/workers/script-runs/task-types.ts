import type { RunLimits, ScriptRunPayload } from '../../queue/script-runs.js';
import type { BridgeEnd } from './host-bridge.js';

/**
 * What the worker's main thread sends a script thread for one run (structured-cloned): the
 * caller's request (name, arguments, function) with the verified hash, and what the worker adds.
 */
export interface RunTask extends Pick<ScriptRunPayload, 'name' | 'hash' | 'args' | 'function'> {
  source: string;
  /** The run's absolute deadline (epoch ms); the same clock as the thread's. */
  deadline: number;
  limits: RunLimits;
  /** Names the script declares in `# @secrets:` (what its approval covers). */
  declaredSecrets: string[];
  /** Their values, fetched by the main thread; null when declared but unset. */
  /** A Map, not an object: a secret may be named `__proto__` or `constructor`. */
  secretValues: ReadonlyMap<string, string | null>;
  /** `scripts.secret_values`: handles (`opaque`, the default) or the values themselves. */
  secretMode?: 'opaque' | 'plain';
  /** Where its host calls are answered (added by the pool). */
  bridge: BridgeEnd;
}

/** What each thread of a script pool is started with (its `workerData`). */
export interface ScriptThreadData {
  /** The pool's compute slots (`compute-slots.ts`), held under the thread's own id. */
  compute: SharedArrayBuffer;
}
