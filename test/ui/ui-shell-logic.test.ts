import { describe, expect, it } from 'vitest';
import { universe } from '../../src/starlark/lib/universe.js';
import { scriptGlobals } from '../../src/queue/script-globals.js';
import { formatDateTime, fromNow } from '../../ui/src/format-time.js';
import { isLong, lineCount } from '../../ui/src/components/long-text-measure.js';
import { pageTitle } from '../../ui/src/page-title.js';
import { STARLARK_BUILTINS, starlarkNames } from '../../ui/src/starlark-names.js';
import { withoutPosition } from '../../ui/src/syntax-message.js';

/** The UI shell's logic that needs no browser: titles, names offered, times, long text. */
describe('page titles', () => {
  it('name each screen first, then Steward', () => {
    expect(pageTitle('/')).toBe('Dashboard · Steward');
    expect(pageTitle('/scripts')).toBe('Scripts · Steward');
    expect(pageTitle('/scripts/new')).toBe('New script · Steward');
    expect(pageTitle('/scripts/a%20b.star')).toBe('a b.star · Scripts · Steward');
    expect(pageTitle('/scripts/a.star/review')).toBe('Review a.star · Steward');
    expect(pageTitle('/scripts/a.star/edit')).toBe('Edit a.star · Steward');
    expect(pageTitle('/schedules/new')).toBe('New schedule · Steward');
    expect(pageTitle('/sessions/ses_1')).toBe('Session · Steward');
    expect(pageTitle('/login')).toBe('Log in · Steward');
    expect(pageTitle('/secrets/x')).toBe('Page not found · Steward');
    expect(pageTitle('/scripts/a.star/nothing')).toBe('Page not found · Steward');
    expect(pageTitle('/%E0%A4%A')).toBe('Page not found · Steward');
  });
});

describe('the names the editor offers', () => {
  it("are the interpreter's predeclared names and Steward's globals, none of Python's", () => {
    expect([...STARLARK_BUILTINS].sort()).toEqual([...universe.keys()].sort());
    const labels = starlarkNames.map((n) => n.label);
    for (const name of scriptGlobals) expect(labels).toContain(name);
    for (const python of ['import', 'class', 'while', 'try', 'open', 'input', 'exec']) {
      expect(labels).not.toContain(python);
    }
  });
});

describe('syntax error messages', () => {
  it('lose the checker\'s "name:line:col:" prefix, the position being shown once', () => {
    expect(withoutPosition("a.star:2:18: got '}', want primary expression")).toBe(
      "got '}', want primary expression",
    );
    expect(withoutPosition('undefined: foo')).toBe('undefined: foo');
  });
});

describe('times', () => {
  it('are English whatever the locale, and carry their zone', () => {
    const at = new Date('2027-01-01T05:30:00Z');
    expect(formatDateTime(at, 'Europe/Berlin')).toBe('1 Jan 2027, 06:30 CET');
    expect(formatDateTime(at, 'UTC')).toBe('1 Jan 2027, 05:30 UTC');
    expect(formatDateTime(at, 'Not/AZone')).toBe('2027-01-01T05:30:00.000Z');
    expect(fromNow(new Date(Date.now() - 3 * 60_000))).toBe('3 minutes ago');
  });
});

describe('long text', () => {
  it('counts lines and collapses beyond 20 lines or 2,000 characters', () => {
    expect(lineCount('')).toBe(0);
    expect(lineCount('a')).toBe(1);
    expect(lineCount('a\nb\n')).toBe(2);
    expect(isLong(Array.from({ length: 20 }, () => 'x').join('\n'))).toBe(false);
    expect(isLong(Array.from({ length: 21 }, () => 'x').join('\n'))).toBe(true);
    expect(isLong('x'.repeat(2_001))).toBe(true);
  });
});
