import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import {
  rpcCodes,
  rpcErrorResponse,
  type RpcCode,
  type RpcErrorResponse,
  type RpcId,
} from '../errors/rpc-error.js';

export type Verdict =
  | { kind: 'forward'; message: JSONRPCMessage; isRequest: boolean }
  | { kind: 'reply'; response: RpcErrorResponse };

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

const validId = (v: unknown): v is string | number =>
  typeof v === 'string' || (typeof v === 'number' && Number.isFinite(v));

/**
 * Checks one parsed message before the SDK sees it. The SDK drops malformed messages silently
 * and reports bad `tools/call` params as an internal error; the spec wants -32600 and -32602.
 */
export function inspectMessage(raw: unknown): Verdict {
  if (Array.isArray(raw)) {
    return reply(null, rpcCodes.invalidRequest, 'Invalid Request: batches are not supported');
  }
  if (!isObject(raw)) {
    return reply(null, rpcCodes.invalidRequest, 'Invalid Request: a message must be a JSON object');
  }
  const id: RpcId = validId(raw.id) ? raw.id : null;
  if ('id' in raw && !validId(raw.id)) {
    return reply(null, rpcCodes.invalidRequest, 'Invalid Request: id must be a string or a number');
  }
  if (raw.jsonrpc !== '2.0') {
    return reply(id, rpcCodes.invalidRequest, 'Invalid Request: jsonrpc must be "2.0"');
  }
  if (!('method' in raw)) {
    // A response to a request of ours; we send none, but it is well-formed JSON-RPC.
    if ('id' in raw && ('result' in raw || 'error' in raw)) {
      return { kind: 'forward', message: raw as unknown as JSONRPCMessage, isRequest: false };
    }
    return reply(id, rpcCodes.invalidRequest, 'Invalid Request: method is missing');
  }
  if (typeof raw.method !== 'string' || raw.method === '') {
    return reply(id, rpcCodes.invalidRequest, 'Invalid Request: method must be a non-empty string');
  }
  if ('params' in raw && raw.params !== undefined && !isObject(raw.params)) {
    return reply(id, rpcCodes.invalidParams, 'Invalid params: params must be an object');
  }
  const isRequest = 'id' in raw;
  if (isRequest && raw.method === 'tools/call') {
    const params = raw.params;
    if (!isObject(params) || typeof params.name !== 'string' || params.name === '') {
      return reply(id, rpcCodes.invalidParams, 'Invalid params: tools/call needs a string "name"');
    }
    if ('arguments' in params && params.arguments !== undefined && !isObject(params.arguments)) {
      return reply(id, rpcCodes.invalidParams, 'Invalid params: "arguments" must be an object');
    }
  }
  return { kind: 'forward', message: raw as unknown as JSONRPCMessage, isRequest };
}

function reply(id: RpcId, code: RpcCode, message: string): Verdict {
  return { kind: 'reply', response: rpcErrorResponse(id, code, message) };
}
