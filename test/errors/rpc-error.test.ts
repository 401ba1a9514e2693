import { describe, expect, it } from 'vitest';
import { AppError } from '../../src/errors/catalogue.js';
import { RpcError, rpcCodes, rpcErrorResponse } from '../../src/errors/rpc-error.js';

describe('rpcCodes', () => {
  it('are the JSON-RPC codes of the spec, with -32000 for the rate limit', () => {
    expect(rpcCodes).toEqual({
      parseError: -32700,
      invalidRequest: -32600,
      methodNotFound: -32601,
      invalidParams: -32602,
      internalError: -32603,
      rateLimited: -32000,
    });
  });
});

describe('RpcError', () => {
  it('carries its numeric code and a message without the SDK prefix', () => {
    const err = new RpcError(rpcCodes.methodNotFound, 'Method not found: tools/nope');
    expect(err).toBeInstanceOf(Error);
    expect(err).not.toBeInstanceOf(AppError);
    expect(err).toMatchObject({
      name: 'RpcError',
      code: -32601,
      message: 'Method not found: tools/nope',
    });
    expect(err.message).not.toMatch(/^MCP error/);
  });
});

describe('rpcErrorResponse', () => {
  it('builds the JSON-RPC error member for the given id', () => {
    expect(rpcErrorResponse(7, rpcCodes.rateLimited, 'Rate limit exceeded')).toEqual({
      jsonrpc: '2.0',
      id: 7,
      error: { code: -32000, message: 'Rate limit exceeded' },
    });
  });

  it('keeps a null id (a request that could not be read) and string ids as they are', () => {
    expect(rpcErrorResponse(null, rpcCodes.parseError, 'Parse error').id).toBeNull();
    expect(rpcErrorResponse('a-1', rpcCodes.invalidRequest, 'x').id).toBe('a-1');
  });
});
