/** JSON-RPC error codes of the spec's tool-server table. */
export const RPC = {
  PARSE_ERROR: -32700,
  INVALID_REQUEST: -32600,
  METHOD_NOT_FOUND: -32601,
  INVALID_PARAMS: -32602,
  INTERNAL_ERROR: -32603,
  RATE_LIMITED: -32000,
} as const;

export type RpcId = string | number | null;

export interface RpcErrorResponse {
  jsonrpc: '2.0';
  id: RpcId;
  error: { code: number; message: string };
}

/**
 * Thrown from a request handler to answer with a JSON-RPC error: the SDK's Protocol uses an
 * error's numeric `code` as is, and its message stays free of the `MCP error N:` prefix.
 */
export class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
    this.name = 'RpcError';
  }
}

export function rpcErrorResponse(id: RpcId, code: number, message: string): RpcErrorResponse {
  return { jsonrpc: '2.0', id, error: { code, message } };
}
