import { describe, expect, it } from 'vitest';
import { createScriptEvents, type ScriptChange } from '../../src/scripts/script-events.js';
import { approvedRecord } from '../support/script-record.js';

describe('script events', () => {
  const change = (): ScriptChange => ({
    kind: 'pending',
    record: approvedRecord('a.star', 'x = 1\n'),
  });

  it('tells every follower in turn, and resolves once all are done', async () => {
    const events = createScriptEvents();
    const heard: string[] = [];
    events.subscribe(async (c) => {
      await new Promise((r) => setTimeout(r, 20));
      heard.push(`slow ${c.kind}`);
    });
    events.subscribe((c) => void heard.push(`quick ${c.kind}`));
    await events.publish(change(), () => {});
    expect(heard).toEqual(['slow pending', 'quick pending']);
  });

  it('keeps a failing follower from the others and from the publisher', async () => {
    const events = createScriptEvents();
    const failures: unknown[] = [];
    const heard: string[] = [];
    events.subscribe(() => {
      throw new Error('follower broke');
    });
    events.subscribe((c) => void heard.push(c.record.name));
    await events.publish(change(), (err) => failures.push(err));
    expect(heard).toEqual(['a.star']);
    expect(failures).toHaveLength(1);
  });

  it('stops telling a follower that unsubscribed', async () => {
    const events = createScriptEvents();
    const heard: string[] = [];
    const stop = events.subscribe((c) => void heard.push(c.kind));
    await events.publish(change(), () => {});
    stop();
    await events.publish(change(), () => {});
    expect(heard).toEqual(['pending']);
  });
});
