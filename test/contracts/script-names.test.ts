import { describe, expect, it } from 'vitest';
import {
  bareScriptName,
  isScriptName,
  scriptNameSchema,
  toScriptName,
} from '../../src/contracts/script-names.js';

describe('script name rule', () => {
  it('takes letters, digits, _ and - ending in .star, at most 64 before the extension', () => {
    for (const name of ['a.star', 'A_b-9.star', `${'x'.repeat(64)}.star`]) {
      expect(isScriptName(name), name).toBe(true);
      expect(scriptNameSchema.safeParse(name).success, name).toBe(true);
    }
    for (const name of [
      'a',
      '.star',
      '-a.star',
      '_a.star',
      'a b.star',
      'a/b.star',
      `${'x'.repeat(65)}.star`,
    ]) {
      expect(isScriptName(name), name).toBe(false);
      const parsed = scriptNameSchema.safeParse(name);
      expect(parsed.success, name).toBe(false);
      expect(parsed.error?.issues[0]?.message).toBe(
        `invalid script name ${JSON.stringify(name)}: letters, digits, _ and -, ending in .star`,
      );
    }
  });

  it('maps tool-server names to API names and back', () => {
    expect(toScriptName('report')).toBe('report.star');
    expect(toScriptName('report.star')).toBe('report.star');
    expect(bareScriptName('report.star')).toBe('report');
    expect(bareScriptName('report')).toBe('report');
  });
});
