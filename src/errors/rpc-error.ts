import { ErrorCode } from '@modelcontextprotocol/sdk/types.js';

/**
 * JSON-RPC error codes of the spec's tool-server table: the SDK's own where they coincide, and
 * -32000 for the rate limit only (the SDK calls -32000 `ConnectionClosed` for requests of its own
 * that it gives up on; on our wire the spec gives it to the limiter and to nothing else).
 */
export const rpcCodes = {
  parseError: ErrorCode.ParseError,
  invalidRequest: ErrorCode.InvalidRequest,
  methodNotFound: ErrorCode.MethodNotFound,
  invalidParams: ErrorCode.InvalidParams,
  internalError: ErrorCode.InternalError,
  rateLimited: -32000,
} as const;

export type RpcCode = (typeof rpcCodes)[keyof typeof rpcCodes];

export type RpcId = string | number | null;

export interface RpcErrorResponse {
  jsonrpc: '2.0';
  id: RpcId;
  error: { code: RpcCode; message: string };
}

/**
 * A protocol failure, answered with the JSON-RPC `error` member. Thrown from a request handler:
 * the SDK's Protocol uses an error's numeric `code` as is, and its message stays free of the
 * `MCP error N:` prefix the SDK's McpError adds.
 */
export class RpcError extends Error {
  constructor(
    readonly code: RpcCode,
    message: string,
  ) {
    super(message);
    this.name = 'RpcError';
  }
}

export function rpcErrorResponse(id: RpcId, code: RpcCode, message: string): RpcErrorResponse {
  return { jsonrpc: '2.0', id, error: { code, message } };
}
