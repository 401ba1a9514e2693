import { threadId, workerData } from 'node:worker_threads';
import {
  callFunction,
  compileModule,
  isCallable,
  None,
  StarlarkError,
  SecretReadError,
  StarlarkExecError,
  StarlarkStaticErrors,
  StarlarkSyntaxError,
  toJS,
  toStarlark,
  type Value,
} from '../../starlark/index.js';
import { scriptGlobals, type ScriptGlobal } from '../../queue/script-globals.js';
import type { UntimedOutcome } from '../../queue/script-runs.js';
import { boundFailure, encodedBytes } from './bound-output.js';
import { computeGate, waitedForCpu } from './compute-slots.js';
import { createHostModules } from './host-modules.js';
import { createProgramCache } from './program-cache.js';
import { secretReadHint } from './secret-handles.js';
import type { RunTask, ScriptThreadData } from './task-types.js';

/** This thread's compiled scripts; a thread runs one task at a time. */
const programs = createProgramCache();
/**
 * This thread's gate to the pool's compute slots (a slot it holds carries its thread id, so the
 * pool can free it if the thread dies); none outside a pool (a task run in place, as in tests).
 */
const gate = computeGate((workerData as Partial<ScriptThreadData> | null)?.compute, threadId);

/**
 * One script run inside a Piscina thread: the module runs top to bottom, then the entry point
 * (the named function, else `main()`, else the global `result`). Limits that the interpreter
 * cannot see (memory, a thread stuck in native code) are enforced by the pool from outside.
 */
export default function runTask(task: RunTask): UntimedOutcome {
  if (!gate.enter(task.deadline)) return waitedForCpu(task.limits.wall_time);
  const logs: string[] = [];
  let outputBytes = 0;
  const { limits } = task;
  const print = (msg: string) => {
    // Counted as the logs are sent (JSON), like the result below.
    outputBytes += encodedBytes(msg) + 1;
    if (outputBytes > limits.output_bytes) {
      throw new StarlarkError(`output limit of ${limits.output_bytes} bytes exceeded`);
    }
    logs.push(msg);
  };
  let program: ReturnType<typeof compileModule> | undefined;
  try {
    const globals: Record<ScriptGlobal, Value> = {
      ...createHostModules({
        bridge: task.bridge,
        deadline: task.deadline,
        limits,
        declaredSecrets: task.declaredSecrets,
        secretValues: task.secretValues,
        ...(task.secretMode ? { secretMode: task.secretMode } : {}),
        gate,
      }),
      args: toStarlark(task.args),
    };
    const predeclared = new Map(Object.entries(globals));
    // The run's limits in the interpreter's terms: this is the one place they are translated.
    const interpreterLimits = {
      maxSteps: limits.steps,
      timeoutMs: Math.max(1, task.deadline - Date.now()),
      maxOutput: limits.output_bytes,
    };
    program = programs.get(task.hash, task.source, () =>
      compileModule({ file: task.name, source: task.source, predeclared: scriptGlobals }),
    );
    const mod = program.run({ predeclared, limits: interpreterLimits, print });
    let value: Value;
    if (task.function !== undefined) {
      const fn = mod.globals.get(task.function);
      if (fn === undefined || !isCallable(fn)) {
        return { success: false, error: `function ${task.function} is not defined`, logs };
      }
      value = Array.isArray(task.args)
        ? callFunction(fn, task.args.map(toStarlark), null, mod.thread)
        : callFunction(fn, [], entriesOf(task.args), mod.thread);
    } else {
      const main = mod.globals.get('main');
      value =
        main !== undefined && isCallable(main)
          ? callFunction(main, [], null, mod.thread)
          : (mod.globals.get('result') ?? None);
    }
    const result = asResultObject(toJsonValue(toJS(value)));
    const size = Buffer.byteLength(JSON.stringify(result), 'utf8') + outputBytes;
    if (size > limits.output_bytes) {
      return {
        success: false,
        error: `output limit of ${limits.output_bytes} bytes exceeded`,
        logs,
      };
    }
    return { success: true, result, logs };
  } catch (err) {
    // Bounded here, before the text is cloned out of the thread.
    return { success: false, ...boundFailure(describe(err), logs, limits.output_bytes) };
  } finally {
    gate.leave();
    program?.release();
  }
}

function entriesOf(args: Record<string, unknown>): Array<[string, Value]> {
  return Object.entries(args).map(([k, v]) => [k, toStarlark(v)]);
}

/** A dict result as it is; anything else wrapped as `{"value": …}`. */
function asResultObject(value: unknown): Record<string, unknown> {
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
    return value as Record<string, unknown>;
  }
  return { value };
}

/**
 * JSON-safe data: dicts with other keys by their string form, and ints beyond 2^53 as their
 * exact decimal text — the result travels as JSON (BullMQ in Redis, then the API or MCP), where
 * a number that large would silently lose digits.
 */
function toJsonValue(x: unknown): unknown {
  if (typeof x === 'bigint') return x.toString();
  if (typeof x === 'number' && !Number.isFinite(x)) return String(x);
  if (x instanceof Uint8Array) return Buffer.from(x).toString('utf8');
  if (Array.isArray(x)) return x.map(toJsonValue);
  if (x instanceof Map) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of x) define(out, String(k), toJsonValue(v));
    return out;
  }
  if (typeof x === 'object' && x !== null) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(x)) define(out, k, toJsonValue(v));
    return out;
  }
  return x;
}

function define(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, {
    value,
    enumerable: true,
    writable: true,
    configurable: true,
  });
}

function describe(err: unknown): string {
  if (err instanceof StarlarkExecError && err.error instanceof SecretReadError) {
    return err.message + secretReadHint;
  }
  if (
    err instanceof StarlarkExecError ||
    err instanceof StarlarkSyntaxError ||
    err instanceof StarlarkStaticErrors ||
    err instanceof StarlarkError
  ) {
    return err.message;
  }
  if (err instanceof RangeError) return `script failed: ${err.message}`;
  return `script failed: ${err instanceof Error ? err.message : String(err)}`;
}
