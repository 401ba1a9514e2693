import { describe, expect, it } from 'vitest';
import { parseMetadata } from '../../src/scripts/metadata.js';

describe('script metadata header', () => {
  it('reads description, author, version and secrets from the leading comments', () => {
    const meta = parseMetadata(
      '#!starlark\r\n# @description:  Weather report \r\n# @Author: Bob\n\n# @version: 2.1\n# @secrets: A_KEY, B_KEY  C_KEY,A_KEY\nx = 1\n',
    );
    expect(meta).toEqual({
      description: 'Weather report',
      author: 'Bob',
      version: '2.1',
      secrets: ['A_KEY', 'B_KEY', 'C_KEY'],
    });
  });

  it('ignores headers after the first line of code', () => {
    expect(parseMetadata('x = 1\n# @secrets: LATE\n')).toEqual({
      description: '',
      author: '',
      version: '',
      secrets: [],
    });
  });
});
