import { isAppError } from './catalogue.js';
import { EgressError } from './egress-errors.js';
import { RpcError, rpcCodes } from './rpc-error.js';
import { ScriptNotFoundError, ScriptRefusedError } from './script-errors.js';
import { ToolError } from './tool-error.js';

/**
 * What a failed tool call answers: a `result` with `isError: true` whose text the AI reads (a
 * domain failure it can act on), or a JSON-RPC `protocol` error. `internal` protocol errors are
 * crashes the caller logs; their text names only the tool.
 */
export type McpFailure =
  { kind: 'result'; text: string } | { kind: 'protocol'; error: RpcError; internal: boolean };

// The AI names scripts as script_run takes them: without `.star`.
const bare = (script: string) => script.replace(/\.star$/, '');

/** The refusal texts of tool-server rules 1–2, worded for the AI. */
function refusalText(err: ScriptRefusedError): string {
  const name = bare(err.details.script);
  switch (err.details.reason) {
    case 'rejected':
      return `Script "${name}" was rejected by an administrator and cannot run.`;
    case 'modified':
      return `Script "${name}" changed since it was approved: an administrator must approve it again before it can run.`;
    case 'pending':
      return `Script "${name}" is pending approval: an administrator must approve it before it can run.`;
    case 'unverified':
      return `Script "${name}" is not approved (its approval does not verify): an administrator must approve it again before it can run.`;
  }
}

/**
 * The one mapping of errors to MCP answers. Meant for the AI: `ToolError`s, egress refusals
 * (worded for a user or the AI) and the API's refusals (4xx), script refusals in the spec's
 * wording. Protocol: `RpcError`s as they are. Anything else is an internal error (-32603).
 */
export function toMcp(err: unknown, tool: string): McpFailure {
  if (err instanceof ScriptNotFoundError) {
    const name = bare(err.details.script);
    return {
      kind: 'result',
      text: `Script "${name}" does not exist. Use script_list to see the scripts.`,
    };
  }
  if (err instanceof ScriptRefusedError) return { kind: 'result', text: refusalText(err) };
  if (err instanceof ToolError || err instanceof EgressError) {
    return { kind: 'result', text: err.message };
  }
  if (isAppError(err) && err.status < 500) return { kind: 'result', text: err.message };
  if (err instanceof RpcError) return { kind: 'protocol', error: err, internal: false };
  return {
    kind: 'protocol',
    error: new RpcError(rpcCodes.internalError, `Internal error while running ${tool}`),
    internal: true,
  };
}
