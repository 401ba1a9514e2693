import { describe, expect, it } from 'vitest';
import { createLifecycle } from '../../src/runtime/lifecycle.js';

describe('process lifecycle', () => {
  it('starts in the starting phase with the given start time', () => {
    const lifecycle = createLifecycle(1234);
    expect(lifecycle.phase).toBe('starting');
    expect(lifecycle.startedAt).toBe(1234);
  });

  it('moves starting → ready → stopping', () => {
    const lifecycle = createLifecycle();
    lifecycle.markReady();
    expect(lifecycle.phase).toBe('ready');
    lifecycle.markStopping();
    expect(lifecycle.phase).toBe('stopping');
  });

  it('never goes back to ready once stopping', () => {
    const lifecycle = createLifecycle();
    lifecycle.markStopping();
    lifecycle.markReady();
    expect(lifecycle.phase).toBe('stopping');
  });

  it('reports an unknown check as failing, and a set check as set last', () => {
    const lifecycle = createLifecycle();
    expect(lifecycle.check('mcp_server')).toBe(false);
    lifecycle.setCheck('mcp_server', true);
    expect(lifecycle.check('mcp_server')).toBe(true);
    lifecycle.setCheck('mcp_server', false);
    expect(lifecycle.check('mcp_server')).toBe(false);
  });
});
