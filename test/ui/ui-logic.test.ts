import { createHash, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { diffRows, unifiedRows } from '../../ui/src/diff-rows.js';
import { visibleParts } from '../../ui/src/visible-text.js';
import {
  blankSchedule,
  changedBody,
  createBody,
  type ScheduleForm,
} from '../../ui/src/schedule-form.js';
import { cronInWords, nextFirings } from '../../ui/src/schedule-time.js';
import { scriptHash, sha256 } from '../../ui/src/sha256.js';
import { hashSource } from '../../src/contracts/script-hashes.js';

/** The UI's logic that needs no browser: the hash it approves, the diff it shows, cron previews. */
describe('the hash the approve button sends', () => {
  it('is the hash Steward gives the same text (WebCrypto)', async () => {
    for (const text of ['', 'def main():\n    return 1\n', 'ünïcödé ✓ 🎉\r\n\ttabs']) {
      expect(await scriptHash(text)).toBe(hashSource(text));
    }
  });

  it('matches node:crypto in the plain-code fallback used off a secure context', () => {
    for (let n = 0; n < 300; n += 7) {
      const bytes = randomBytes(n);
      const expected = createHash('sha256').update(bytes).digest('hex');
      expect(Buffer.from(sha256(new Uint8Array(bytes))).toString('hex')).toBe(expected);
    }
  });
});

describe('diffRows', () => {
  it('shows every line of a new text as added', () => {
    const rows = diffRows('', 'a\nb\n');
    expect(rows).toEqual([
      { right: { n: 1, text: 'a', kind: 'add' } },
      { right: { n: 2, text: 'b', kind: 'add' } },
    ]);
  });

  it('puts a changed line beside the one it replaces, and numbers both sides', () => {
    const rows = diffRows('a\nb\nc\n', 'a\nB\nc\nd\n');
    expect(rows).toEqual([
      { left: { n: 1, text: 'a', kind: 'same' }, right: { n: 1, text: 'a', kind: 'same' } },
      { left: { n: 2, text: 'b', kind: 'del' }, right: { n: 2, text: 'B', kind: 'add' } },
      { left: { n: 3, text: 'c', kind: 'same' }, right: { n: 3, text: 'c', kind: 'same' } },
      { right: { n: 4, text: 'd', kind: 'add' } },
    ]);
  });

  it('marks what changed within a replaced line, and only that', () => {
    const [row] = diffRows(
      'x = http.get("https://a.example")\n',
      'x = http.post("https://b.example")\n',
    );
    const changed = (parts?: Array<{ text: string; changed: boolean }>) =>
      parts?.filter((p) => p.changed).map((p) => p.text);
    expect(changed(row!.left!.parts)).toEqual(['get', 'a']);
    expect(changed(row!.right!.parts)).toEqual(['post', 'b']);
    expect(row!.left!.parts!.map((p) => p.text).join('')).toBe(row!.left!.text);
    const [spaced] = diffRows('return total + 1\n', 'return total - 1\n');
    expect(changed(spaced!.right!.parts)).toEqual(['-']);
  });

  it('lays the same rows out one under the other for a narrow screen', () => {
    const rows = diffRows('a\nb\nc\nz\n', 'a\nB\nC\nz\nd\n');
    expect(
      unifiedRows(rows).map((u) => [u.old ?? null, u.new ?? null, u.line.kind, u.line.text]),
    ).toEqual([
      [1, 1, 'same', 'a'],
      [2, null, 'del', 'b'],
      [3, null, 'del', 'c'],
      [null, 2, 'add', 'B'],
      [null, 3, 'add', 'C'],
      [4, 4, 'same', 'z'],
      [null, 5, 'add', 'd'],
    ]);
  });
});

describe('invisible characters in the diff', () => {
  it('names each one Steward reports and leaves the rest as text', () => {
    expect(visibleParts('a\u202eb\u200b\u{E0041}c é')).toEqual([
      'a',
      { code: 'U+202E', name: 'right-to-left override' },
      'b',
      { code: 'U+200B', name: 'zero width space' },
      { code: 'U+E0041', name: 'tag character' },
      'c é',
    ]);
    expect(visibleParts('plain')).toEqual(['plain']);
  });
});

describe('the cron preview', () => {
  it('gives the next five firings in the chosen time zone', () => {
    const preview = nextFirings('30 6 * * *', 'Europe/Oslo', 5);
    expect('fires' in preview && preview.fires).toHaveLength(5);
    if (!('fires' in preview)) return;
    const oslo = new Intl.DateTimeFormat('en-GB', {
      timeZone: 'Europe/Oslo',
      hour: '2-digit',
      minute: '2-digit',
    });
    for (const fire of preview.fires) expect(oslo.format(fire)).toBe('06:30');
  });

  it("refuses what Steward refuses, with Steward's reason", () => {
    expect(nextFirings('* * * *', 'UTC')).toEqual({
      error: expect.stringContaining('expected 5 fields'),
    });
    expect(nextFirings('0 0 30 2 *', 'UTC')).toHaveProperty('error');
  });

  it('says the expression in words', () => {
    expect(cronInWords('30 6 * * 1-5')).toBe('At 06:30, Monday through Friday');
  });
});

describe('what a schedule save sends', () => {
  const base: ScheduleForm = {
    ...blankSchedule('UTC'),
    name: 'nightly',
    script_name: 'report.star',
    provider: 'telegram',
    channel_id: '42',
    run_once: true,
  };

  it('sends only the fields the person changed, never a stale enabled', () => {
    expect(changedBody(base, { ...base })).toEqual({});
    expect(changedBody(base, { ...base, name: ' renamed ' })).toEqual({ name: 'renamed' });
    expect(changedBody(base, { ...base, enabled: false })).toEqual({ enabled: false });
    expect(changedBody(base, { ...base, cron_expr: '0 8 * * *', timezone: 'Europe/Oslo' })).toEqual(
      { cron_expr: '0 8 * * *', timezone: 'Europe/Oslo' },
    );
  });

  it('clears the other kind when the type changes, and the target when it is emptied', () => {
    expect(changedBody(base, { ...base, type: 'agent', prompt: 'summarise' })).toEqual({
      type: 'agent',
      prompt: 'summarise',
      script_name: null,
    });
    const agent = { ...base, type: 'agent' as const, script_name: '', prompt: 'a' };
    expect(changedBody(agent, { ...agent, type: 'script', script_name: 'x.star' })).toEqual({
      type: 'script',
      script_name: 'x.star',
      prompt: null,
    });
    expect(changedBody(agent, { ...agent, prompt: 'b' })).toEqual({ prompt: 'b' });
    expect(changedBody(base, { ...base, provider: '' })).toEqual({ output_target: null });
    expect(changedBody(base, { ...base, channel_id: ' 43 ' })).toEqual({
      output_target: { provider: 'telegram', channel_id: '43' },
    });
  });

  it('creates with the whole form', () => {
    expect(createBody(base)).toEqual({
      name: 'nightly',
      type: 'script',
      cron_expr: '0 7 * * *',
      timezone: 'UTC',
      enabled: true,
      run_once: true,
      script_name: 'report.star',
      output_target: { provider: 'telegram', channel_id: '42' },
    });
  });
});
