/**
 * JSON-RPC error codes of the spec's tool-server table: JSON-RPC 2.0's own, and -32000 for the
 * rate limit only (the MCP SDK calls -32000 `ConnectionClosed` for requests of its own that it
 * gives up on; on our wire the spec gives it to the limiter and to nothing else). Written out
 * rather than read from the SDK's types module, which would load its schemas into every process.
 */
export const rpcCodes = {
  parseError: -32700,
  invalidRequest: -32600,
  methodNotFound: -32601,
  invalidParams: -32602,
  internalError: -32603,
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
