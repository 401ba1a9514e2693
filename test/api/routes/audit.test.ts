import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createScriptsHarness, type ScriptsHarness } from '../../scripts/harness.js';

let h: ScriptsHarness;
beforeAll(async () => {
  h = await createScriptsHarness();
  await h.services.audit.record({
    actor: 'mcp',
    channel: 'mcp',
    action: 'script.update',
    target: 'b.star',
  });
  for (const [action, actor] of [
    ['script.create', 'admin'],
    ['script.approve', 'admin'],
    ['tool.call', 'ai'],
  ] as const) {
    await h.services.audit.record({ actor, channel: 'api', action, target: 'a.star' });
  }
});
afterAll(async () => {
  await h?.close();
});

describe('GET /api/audit', () => {
  it('pages through the log newest first, filtered', async () => {
    const all = await h.call('GET', '/api/audit?action=script&limit=1');
    expect(all.statusCode, all.body).toBe(200);
    const page = all.json();
    expect(page.entries).toHaveLength(1);
    expect(page.entries[0]).toMatchObject({ action: 'script.approve', actor: 'admin' });
    const next = (
      await h.call('GET', `/api/audit?action=script&cursor=${page.next_cursor}`)
    ).json();
    expect(next.entries.map((e: { action: string }) => e.action)).toContain('script.create');
    const ai = (await h.call('GET', '/api/audit?actor=ai')).json();
    expect(ai.entries.map((e: { action: string }) => e.action)).toEqual(['tool.call']);
  });

  it('filters by channel and by exact target', async () => {
    const mcp = (await h.call('GET', '/api/audit?channel=mcp')).json();
    expect(mcp.entries.map((e: { target: string }) => e.target)).toEqual(['b.star']);
    const a = (await h.call('GET', '/api/audit?action=script&target=a.star')).json();
    expect(a.entries.map((e: { action: string }) => e.action)).toEqual([
      'script.approve',
      'script.create',
    ]);
    // A target is matched whole: a prefix finds nothing.
    expect((await h.call('GET', '/api/audit?target=a')).json().entries).toEqual([]);
  });

  it('refuses a bad filter and an anonymous caller', async () => {
    expect((await h.call('GET', '/api/audit?since=yesterday')).statusCode).toBe(400);
    expect((await h.call('GET', '/api/audit?cursor=abc')).statusCode).toBe(400);
    const channel = await h.call('GET', '/api/audit?channel=carrier-pigeon');
    expect(channel.statusCode).toBe(400);
    expect(channel.json()).toMatchObject({ error: 'invalid_request' });
    expect((await h.app.inject({ method: 'GET', url: '/api/audit' })).statusCode).toBe(401);
  });
});
