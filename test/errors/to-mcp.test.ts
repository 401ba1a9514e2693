import { ErrorCode } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/errors/config-error.js';
import { EgressError } from '../../src/errors/egress-errors.js';
import { EngineUnavailableError } from '../../src/errors/engine-errors.js';
import { BadRequestError } from '../../src/errors/request-errors.js';
import { RpcError, rpcCodes } from '../../src/errors/rpc-error.js';
import { ScriptNotFoundError, ScriptRefusedError } from '../../src/errors/script-errors.js';
import { toMcp } from '../../src/errors/to-mcp.js';
import { ToolError } from '../../src/errors/tool-error.js';

describe('toMcp', () => {
  it('answers tool failures as isError results with the error text', () => {
    expect(toMcp(new ToolError('no such file'), 'workspace_read')).toEqual({
      kind: 'result',
      text: 'no such file',
    });
    expect(toMcp(new EgressError('blocked', 'blocked: private address'), 'web_fetch')).toEqual({
      kind: 'result',
      text: 'blocked: private address',
    });
    expect(toMcp(new BadRequestError('content contains a marker'), 'vault_write')).toEqual({
      kind: 'result',
      text: 'content contains a marker',
    });
  });

  it('words script refusals for the AI from their details, not their message', () => {
    const text = (err: unknown) => {
      const failure = toMcp(err, 'script_run');
      return failure.kind === 'result' ? failure.text : undefined;
    };
    expect(text(new ScriptNotFoundError('a.star'))).toBe(
      'Script "a" does not exist. Use script_list to see the scripts.',
    );
    expect(text(new ScriptRefusedError('a.star', 'pending'))).toBe(
      'Script "a" is pending approval: an administrator must approve it before it can run.',
    );
    expect(text(new ScriptRefusedError('a.star', 'rejected'))).toBe(
      'Script "a" was rejected by an administrator and cannot run.',
    );
    expect(text(new ScriptRefusedError('a.star', 'modified'))).toBe(
      'Script "a" changed since it was approved: an administrator must approve it again before it can run.',
    );
    // A name that reads like a reason does not change the reason.
    expect(text(new ScriptRefusedError('rejected-report.star', 'pending'))).toBe(
      'Script "rejected-report" is pending approval: an administrator must approve it before it can run.',
    );
  });

  it('passes protocol errors through and hides crashes behind an internal error', () => {
    const invalid = new RpcError(rpcCodes.invalidParams, 'Invalid params: x');
    expect(toMcp(invalid, 't')).toEqual({ kind: 'protocol', error: invalid, internal: false });
    for (const crash of [
      new Error('boom'),
      new ConfigError('bad'),
      new EngineUnavailableError('down'),
    ]) {
      const failure = toMcp(crash, 'memory_read');
      expect(failure).toMatchObject({ kind: 'protocol', internal: true });
      if (failure.kind !== 'protocol') throw new Error('unreachable');
      expect(failure.error.code).toBe(ErrorCode.InternalError);
      expect(failure.error.message).toBe('Internal error while running memory_read');
    }
  });

  it("uses the SDK's codes, and -32000 for the rate limit only", () => {
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
