import { describe, expect, it } from 'vitest';
import { InvalidScriptError } from '../../src/errors/script-errors.js';
import { scriptGlobals } from '../../src/queue/script-runs.js';
import { assertParses, findSyntaxError } from '../../src/scripts/syntax-check.js';

describe('findSyntaxError', () => {
  it('answers null for a script that parses and uses only the script globals', () => {
    const source = `${scriptGlobals.map((g) => `x_${g} = ${g}`).join('\n')}\nresult = {"a": 1}\n`;
    expect(findSyntaxError('ok.star', source)).toBeNull();
  });

  it('answers the message, line and column of a syntax error', () => {
    const problem = findSyntaxError('bad.star', 'x = 1\ndef (:\n');
    expect(problem).not.toBeNull();
    expect(problem?.line).toBe(2);
    expect(problem?.column).toBeGreaterThan(0);
    expect(problem?.message).toMatch(/bad\.star:2:/);
  });

  it('refuses a name that resolves nowhere', () => {
    const problem = findSyntaxError('u.star', 'result = undefined_name\n');
    expect(problem).toMatchObject({ line: 1 });
    expect(problem?.message).toMatch(/undefined_name/);
  });

  it('answers only the first problem', () => {
    const problem = findSyntaxError('two.star', 'a = nope1\nb = nope2\n');
    expect(problem?.line).toBe(1);
  });
});

describe('assertParses', () => {
  it('returns quietly for a valid script', () => {
    expect(() => assertParses('ok.star', 'result = json\n')).not.toThrow();
  });

  it('throws 400 invalid_script with line and column', () => {
    let thrown: unknown;
    try {
      assertParses('bad.star', '\n\nx = (\n');
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(InvalidScriptError);
    const err = thrown as InvalidScriptError;
    expect(err.status).toBe(400);
    expect(err.details.line).toBeGreaterThanOrEqual(3);
    expect(err.details.column).toBeGreaterThan(0);
  });
});
