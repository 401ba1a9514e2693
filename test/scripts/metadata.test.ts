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

  it('binds a secret to one place of a request: a header, the URL or the body', () => {
    const meta = parseMetadata(
      [
        '# @secrets: API_KEY -> api.example.com, *.example.org in header Authorization',
        '# @secrets: API_KEY -> 10.0.0.5:8443',
        '# @secrets: TOKEN -> api.example.com IN url',
        '# @secrets: BODY_KEY -> hooks.example.com in body',
        '# @secrets: PLAIN',
        'x = 1',
      ].join('\n'),
    );
    expect(meta.secrets).toEqual(['API_KEY', 'TOKEN', 'BODY_KEY', 'PLAIN']);
    expect(meta.secret_destinations).toEqual({
      API_KEY: ['api.example.com', '*.example.org', '10.0.0.5:8443'],
      TOKEN: ['api.example.com'],
      BODY_KEY: ['hooks.example.com'],
    });
    expect(meta.secret_placements).toEqual({
      API_KEY: 'header Authorization',
      TOKEN: 'url',
      BODY_KEY: 'body',
    });
    expect(parseMetadata('# @secrets: A -> a.example.com\n').secret_placements).toBeUndefined();
  });

  it('finds a malformed place, or a second place for one secret, at its column', () => {
    expect(findMetadataError('# @secrets: KEY -> api.example.com in headers\n')).toEqual({
      message: '@secrets: "in headers" must be "in header NAME", "in url" or "in body"',
      line: 1,
      column: 36,
    });
    expect(
      findMetadataError('# @secrets: KEY -> a.example.com in header Bad:Name\n'),
    ).toMatchObject({
      message: '@secrets: "in header Bad:Name" must be "in header NAME", "in url" or "in body"',
    });
    expect(findMetadataError('# @secrets: KEY -> a.example.com in\n')).toMatchObject({ line: 1 });
    expect(
      findMetadataError(
        '# @secrets: KEY -> a.example.com in url\n# @secrets: KEY -> b.example.com in body\n',
      ),
    ).toEqual({
      message: '@secrets: KEY is already bound to "in url"; a secret has one place',
      line: 2,
      column: 34,
    });
    expect(
      findMetadataError(
        '# @secrets: KEY -> a.example.com in header X-Key\n# @secrets: KEY -> b.example.com in header x-key\n',
      ),
    ).toBeNull();
  });

  it('takes a wildcard only below a public suffix, by the Public Suffix List', () => {
    for (const ok of [
      '*.example.org',
      '*.api.example.co.uk',
      '*.me.github.io',
      '*.corp.internal:8443',
    ]) {
      expect(findMetadataError(`# @secrets: K -> ${ok}\n`), ok).toBeNull();
    }
    for (const bad of ['*.com', '*.co.uk', '*.github.io', '*.internal', '*.blogspot.com']) {
      const problem = findMetadataError(`# @secrets: K -> a.example.com, ${bad}\n`);
      expect(problem, bad).toEqual({
        message: `@secrets: "${bad}" covers the public suffix "${bad.slice(2)}", where anyone may register a name; a wildcard must sit below a registrable domain (as *.example.org)`,
        line: 1,
        column: 33,
      });
    }
    expect(findMetadataError('# @secrets: K -> *.0.0.1\n')?.message).toMatch(
      /wildcard over IP addresses/,
    );
    expect(parseMetadata('# @secrets: K -> *.com, a.example.com\n').secret_destinations).toEqual({
      K: ['a.example.com'],
    });
  });
});
