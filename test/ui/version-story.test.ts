import { describe, expect, it } from 'vitest';
import type { AuditEntry } from '../../ui/src/api/types.js';
import { lastApproved, versionStories } from '../../ui/src/version-story.js';

/** A script's versions told from the audit log, and the version "restore approved" goes to. */
const entry = (action: string, commit: string, extra: Partial<AuditEntry> = {}): AuditEntry => ({
  id: '1-0',
  at: '2026-01-01T00:00:00.000Z',
  actor: 'admin',
  channel: 'ui',
  action,
  target: 's.star',
  outcome: 'ok',
  prev: '',
  hash: '',
  ...extra,
  details: { commit, hash: `sha256:${commit}`, ...extra.details },
});

describe('version stories', () => {
  it('keeps decisions and restores by version, leaving out what failed', () => {
    const stories = versionStories([
      entry('script.reject', 'c2', { details: { reason: 'no' }, channel: 'chat' }),
      entry('script.approve', 'c2', { outcome: 'refused' }),
      entry('script.update', 'c2', { channel: 'mcp', actor: 'mcp' }),
      entry('script.approve', 'c1', { channel: 'api' }),
      entry('tool.script_run', 'c1'),
    ]);
    expect(stories.get('c2')!.map((e) => [e.kind, e.channel, e.reason])).toEqual([
      ['rejected', 'chat', 'no'],
      ['written', 'mcp', undefined],
    ]);
    expect(stories.get('c1')!.map((e) => e.kind)).toEqual(['approved']);
  });

  it('goes back to the approved version the record names, else the newest approved in the log', () => {
    const stories = versionStories([
      entry('script.reject', 'c3'),
      entry('script.approve', 'c3'),
      entry('script.approve', 'c2'),
      entry('script.approve', 'c1'),
    ]);
    expect(lastApproved('c1', stories, ['c3', 'c2', 'c1'])).toBe('c1');
    // c3 was approved, then rejected (revoked): c2 is the last approval that stands.
    expect(lastApproved(undefined, stories, ['c3', 'c2', 'c1'])).toBe('c2');
    expect(lastApproved('c3', stories, ['c3', 'c2', 'c1'])).toBeNull();
    expect(lastApproved(undefined, new Map(), ['c1'])).toBeNull();
  });
});
