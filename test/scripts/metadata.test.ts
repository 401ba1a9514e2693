import { describe, expect, it } from 'vitest';
import { findMetadataError, parseMetadata } from '../../src/scripts/metadata.js';

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

  it('binds secrets to destinations; lines accumulate, and the names form still declares', () => {
    const meta = parseMetadata(
      [
        '# @secrets: API_KEY -> api.example.com, *.Example.org',
        '# @secrets: PLAIN, OTHER',
        '# @secrets: API_KEY -> 10.0.0.5:8443',
        '# @secrets: HOOK -> [::1]:9000',
        'x = 1',
      ].join('\n'),
    );
    expect(meta.secrets).toEqual(['API_KEY', 'PLAIN', 'OTHER', 'HOOK']);
    expect(meta.secret_destinations).toEqual({
      API_KEY: ['api.example.com', '*.example.org', '10.0.0.5:8443'],
      HOOK: ['[::1]:9000'],
    });
    expect(findMetadataError('# @secrets: A -> b.example\nx = 1\n')).toBeNull();
  });

  it('finds a malformed binding with its line and column', () => {
    expect(
      findMetadataError('# @description: d\n# @secrets: KEY -> api.example.com, http://x/\n'),
    ).toEqual({
      message:
        '@secrets: "http://x/" is not a destination (a host name, *.suffix or IP, optionally :port)',
      line: 2,
      column: 37,
    });
    expect(findMetadataError('# @secrets: A B -> host.example\n')).toMatchObject({
      message: '@secrets: "A B" before "->" must be one secret name',
      line: 1,
    });
  });
});
