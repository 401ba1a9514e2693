import type { Egress, OutgoingRequest } from '../../net/egress.js';
import {
  checkPlacedSecrets,
  type PlacedSecret,
  type SecretBindings,
} from '../../secrets/secret-destinations.js';
import type { HostHandler } from './host-bridge.js';

export interface HttpCall {
  method: 'GET' | 'POST';
  url: string;
  headers: Record<string, string>;
  body?: string;
  /** The secrets the script thread placed in this request, and where (opaque secrets). */
  secrets?: PlacedSecret[];
}

export interface HttpAnswer {
  status: number;
  body: string;
  headers: Record<string, string>;
}

/**
 * The main-thread half of a run's host calls. Each run gets its own handler so that the
 * response-body budget (`http_body_bytes`) is counted per run, and every request ends by the
 * run's deadline.
 */
export function createHostHandler(opts: {
  egress: Egress;
  deadline: number;
  bodyBudget: number;
  /**
   * `scripts.secret_values: plain` only: refuses a request found to carry a secret to a host it
   * is not bound to (every redirect hop), by scanning it.
   */
  inspect?: ((request: OutgoingRequest) => void) | null;
  /**
   * The script's `# @secrets:` bindings: each secret a request carries (as the thread placed it)
   * must be in its admitted place and go to one of its hosts, on every hop.
   */
  bindings?: SecretBindings;
  /**
   * Applied to each response's body and header values before the script sees them: a declared
   * host that echoes what it received (a debugging endpoint, an error page quoting the request)
   * would otherwise hand the script the plain value of a secret it may only hold as a handle.
   */
  scrub?: (text: string) => string;
}): HostHandler {
  const scrub = opts.scrub ?? ((text: string) => text);
  let budget = opts.bodyBudget;
  return async (op, args) => {
    if (op !== 'http') throw new Error(`unknown host call ${op}`);
    const call = args as HttpCall;
    const remaining = opts.deadline - Date.now();
    if (remaining <= 0) throw new Error('wall time limit reached before the request');
    if (budget <= 0) throw new Error('HTTP response body limit of this run is used up');
    const placed = call.secrets ?? [];
    const { bindings } = opts;
    const inspect =
      placed.length === 0
        ? opts.inspect
        : (hop: OutgoingRequest) => {
            // No bindings to check against means nothing may leave with a secret.
            checkPlacedSecrets(
              placed,
              hop.url,
              bindings ?? { destinations: {}, placements: {}, policy: 'bound' },
            );
            opts.inspect?.(hop);
          };
    const res = await opts.egress.fetch(call.url, {
      method: call.method,
      headers: call.headers,
      ...(call.body !== undefined ? { body: call.body } : {}),
      timeoutMs: remaining,
      maxBytes: budget,
      ...(inspect ? { inspect } : {}),
    });
    budget -= res.body.length;
    return {
      status: res.status,
      body: scrub(res.body.toString('utf8')),
      headers: Object.fromEntries(
        Object.entries(res.headers).map(([name, value]) => [name, scrub(value)]),
      ),
    } satisfies HttpAnswer;
  };
}
