import {
  builtin,
  defineModule,
  List,
  None,
  SFloat,
  StarlarkError,
  Tuple,
  type Thread,
  type Value,
} from '../../starlark/values/index.js';
import { formatPercent } from '../../starlark/values/percent-format.js';
import { toStarlark } from '../../starlark/values/convert.js';
import { jsonModule } from '../../starlark/index.js';
import type { RunLimits } from '../../queue/script-runs.js';
import type { ScriptGlobal } from '../../queue/script-globals.js';
import { unpackArgs, wantString } from '../../starlark/values/unpack.js';
import { createCodecModules } from './codec-modules.js';
import type { ComputeGate } from './compute-slots.js';
import { callHost, HostCallTimeout, hostSleep, type BridgeEnd } from './host-bridge.js';
import type { HttpAnswer } from './host-calls.js';
import { buildHttpRequest, type HttpArgs } from './http-request.js';
import { createSecretVault } from './secret-handles.js';

/** Per-run state the host modules close over. */
export interface HostRun {
  bridge: BridgeEnd;
  /** Absolute deadline (epoch ms) of the run. */
  deadline: number;
  limits: Pick<RunLimits, 'http_requests'>;
  declaredSecrets: string[];
  secretValues: ReadonlyMap<string, string | null>;
  /**
   * `scripts.secret_values`: `opaque` gives `secrets.get` handles whose values only the host
   * places; `plain` the values themselves (absent: opaque).
   */
  secretMode?: 'opaque' | 'plain';
  /** The run's compute slot: given back while it waits, so other runs compute meanwhile. */
  gate: ComputeGate;
}

/** Longest single `time.sleep`, in seconds. */
export const maxSleepSeconds = 5;

export class WallTimeExceeded extends StarlarkError {}

function wallTimeError(): WallTimeExceeded {
  return new WallTimeExceeded('wall time limit exceeded');
}

/**
 * Scripts get the interpreter's own `json` module (the conformance-tested one): one instance,
 * frozen, shared by every run of this thread.
 */
const json = jsonModule();

/** The host modules of one run: every name a script sees (`ScriptGlobal`) except `args`. */
export function createHostModules(run: HostRun): Record<Exclude<ScriptGlobal, 'args'>, Value> {
  let requests = 0;
  const maxRequests = run.limits.http_requests;
  const vault = run.secretMode === 'plain' ? null : createSecretVault(run.secretValues);

  const http = (fn: string, args: HttpArgs, thread: Thread): Value => {
    if (requests >= maxRequests) {
      throw new StarlarkError(`${fn}: more than ${maxRequests} HTTP requests in one run`);
    }
    // Built (its secrets placed, or the error of a misplaced one) before it counts or waits.
    const { call, hide } = buildHttpRequest(fn, args, vault, thread);
    requests++;
    const remaining = run.deadline - Date.now();
    if (remaining <= 0) throw wallTimeError();
    let answer: HttpAnswer | undefined;
    let failure: StarlarkError | undefined;
    run.gate.leave();
    try {
      answer = callHost(run.bridge, 'http', call, remaining) as HttpAnswer;
    } catch (err) {
      failure =
        err instanceof HostCallTimeout
          ? wallTimeError()
          : new StarlarkError(`${fn}: ${hide((err as Error).message)}`);
    }
    // The script computes again only with a slot, also to handle the error.
    if (!run.gate.enter(run.deadline)) throw wallTimeError();
    if (failure !== undefined || answer === undefined) throw failure ?? wallTimeError();
    return toStarlark({ status: answer.status, body: answer.body, headers: answer.headers });
  };

  const httpModule = defineModule('http', {
    get: builtin('get', (thread, args, kwargs) => {
      const [url, headers] = unpackArgs('http.get', args, kwargs, ['url', 'headers?']);
      return http('http.get', { method: 'GET', url: url as Value, headers }, thread);
    }),
    post: builtin('post', (thread, args, kwargs) => {
      const [url, body, headers, contentType] = unpackArgs('http.post', args, kwargs, [
        'url',
        'body?',
        'headers?',
        'content_type?',
      ]);
      return http(
        'http.post',
        { method: 'POST', url: url as Value, headers, body, contentType },
        thread,
      );
    }),
  });

  const timeModule = defineModule('time', {
    now: builtin('now', (_t, args, kwargs) => {
      unpackArgs('time.now', args, kwargs, []);
      return new Date().toISOString();
    }),
    sleep: builtin('sleep', (_t, args, kwargs) => {
      const [x] = unpackArgs('time.sleep', args, kwargs, ['seconds']);
      const seconds = typeof x === 'number' ? x : x instanceof SFloat ? x.v : NaN;
      if (!Number.isFinite(seconds) || seconds < 0 || seconds > maxSleepSeconds) {
        throw new StarlarkError(
          `time.sleep: seconds must be a number from 0 to ${maxSleepSeconds}`,
        );
      }
      const ms = Math.round(seconds * 1000);
      const remaining = run.deadline - Date.now();
      run.gate.leave();
      hostSleep(run.bridge, Math.min(ms, Math.max(0, remaining)));
      if (!run.gate.enter(run.deadline) || ms > remaining) throw wallTimeError();
      return None;
    }),
  });

  const secretsModule = defineModule('secrets', {
    get: builtin('get', (_t, args, kwargs) => {
      const [x] = unpackArgs('secrets.get', args, kwargs, ['name']);
      const name = wantString('secrets.get', 'name', x as Value);
      if (!run.declaredSecrets.includes(name)) {
        throw new StarlarkError(
          `secrets.get: secret "${name}" is not declared in this script's "# @secrets:" header`,
        );
      }
      return vault === null ? (run.secretValues.get(name) ?? None) : vault.handle(name);
    }),
    list: builtin('list', (_t, args, kwargs) => {
      unpackArgs('secrets.list', args, kwargs, []);
      return new List([...run.declaredSecrets]);
    }),
  });

  const format = builtin('format', (thread, args, kwargs) => {
    if (kwargs !== null && kwargs.length > 0) {
      throw new StarlarkError('format: unexpected keyword arguments');
    }
    const [fmt, ...rest] = args;
    if (fmt === undefined) throw new StarlarkError('format: missing format string');
    return formatPercent(wantString('format', 'fmt', fmt), new Tuple(rest), thread);
  });

  return {
    http: httpModule,
    json,
    time: timeModule,
    secrets: secretsModule,
    format,
    ...createCodecModules(vault),
  };
}
