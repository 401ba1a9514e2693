import { describe, expect, it } from 'vitest';
import { inspectMessage } from '../../src/mcp/message-guard.js';

/** The JSON-RPC error a message gets back, or 'forward' when the SDK should see it. */
function answer(raw: unknown) {
  const verdict = inspectMessage(raw);
  return verdict.kind === 'reply' ? verdict.response : 'forward';
}
const code = (raw: unknown) => {
  const a = answer(raw);
  return a === 'forward' ? a : a.error.code;
};

describe('inspectMessage', () => {
  it('forwards requests and notifications unchanged, telling them apart', () => {
    const request = { jsonrpc: '2.0', id: 1, method: 'tools/list' };
    expect(inspectMessage(request)).toEqual({ kind: 'forward', message: request, isRequest: true });
    const note = { jsonrpc: '2.0', method: 'notifications/initialized' };
    expect(inspectMessage(note)).toEqual({ kind: 'forward', message: note, isRequest: false });
    expect(code({ jsonrpc: '2.0', id: 'abc', method: 'ping', params: {} })).toBe('forward');
  });

  it('forwards well-formed responses as non-requests', () => {
    for (const response of [
      { jsonrpc: '2.0', id: 1, result: {} },
      { jsonrpc: '2.0', id: 1, error: { code: -1, message: 'x' } },
    ]) {
      expect(inspectMessage(response)).toEqual({
        kind: 'forward',
        message: response,
        isRequest: false,
      });
    }
  });

  it('refuses batches and non-objects with -32600 and id null', () => {
    for (const raw of [[], [{ jsonrpc: '2.0', id: 1, method: 'ping' }], 'ping', 42, null, true]) {
      expect(answer(raw), JSON.stringify(raw)).toMatchObject({
        jsonrpc: '2.0',
        id: null,
        error: { code: -32600 },
      });
    }
    expect(answer([])).toMatchObject({
      error: { message: 'Invalid Request: batches are not supported' },
    });
  });

  it('refuses an id that is not a string or a number, answering with id null', () => {
    for (const id of [null, true, { n: 1 }, [1]]) {
      expect(answer({ jsonrpc: '2.0', id, method: 'ping' }), JSON.stringify(id)).toEqual({
        jsonrpc: '2.0',
        id: null,
        error: { code: -32600, message: 'Invalid Request: id must be a string or a number' },
      });
    }
  });

  it('refuses a wrong or missing jsonrpc version, echoing the id', () => {
    for (const jsonrpc of [undefined, '1.0', 2]) {
      expect(answer({ jsonrpc, id: 7, method: 'ping' })).toEqual({
        jsonrpc: '2.0',
        id: 7,
        error: { code: -32600, message: 'Invalid Request: jsonrpc must be "2.0"' },
      });
    }
  });

  it('refuses a missing, empty or non-string method', () => {
    expect(answer({ jsonrpc: '2.0', id: 3 })).toMatchObject({
      id: 3,
      error: { code: -32600, message: 'Invalid Request: method is missing' },
    });
    expect(answer({ jsonrpc: '2.0' })).toMatchObject({ id: null, error: { code: -32600 } });
    expect(code({ jsonrpc: '2.0', id: 3, method: '' })).toBe(-32600);
    expect(code({ jsonrpc: '2.0', id: 3, method: 5 })).toBe(-32600);
  });

  it('refuses params that are not an object with -32602', () => {
    for (const params of [[1, 2], 'x', 3, null]) {
      expect(
        answer({ jsonrpc: '2.0', id: 4, method: 'ping', params }),
        JSON.stringify(params),
      ).toEqual({
        jsonrpc: '2.0',
        id: 4,
        error: { code: -32602, message: 'Invalid params: params must be an object' },
      });
    }
    expect(code({ jsonrpc: '2.0', id: 4, method: 'ping', params: undefined })).toBe('forward');
  });

  it('refuses tools/call without a string name or with non-object arguments', () => {
    const call = (params: unknown) =>
      answer({ jsonrpc: '2.0', id: 9, method: 'tools/call', params });
    for (const params of [undefined, {}, { name: '' }, { name: 3 }]) {
      expect(call(params), JSON.stringify(params)).toMatchObject({
        id: 9,
        error: { code: -32602, message: 'Invalid params: tools/call needs a string "name"' },
      });
    }
    for (const args of [[1], 'x', null]) {
      expect(call({ name: 'echo', arguments: args }), JSON.stringify(args)).toMatchObject({
        error: { code: -32602, message: 'Invalid params: "arguments" must be an object' },
      });
    }
    expect(call({ name: 'echo' })).toBe('forward');
    expect(call({ name: 'echo', arguments: {} })).toBe('forward');
  });

  it('leaves a tools/call notification to the SDK, since nobody waits for an answer', () => {
    expect(code({ jsonrpc: '2.0', method: 'tools/call', params: {} })).toBe('forward');
  });
});
