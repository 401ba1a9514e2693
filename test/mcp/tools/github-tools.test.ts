import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { githubCreateIssue, githubListIssues } from '../../../src/mcp/tools/github-tools.js';
import { startServer, type LocalServer } from '../../net/local-server.js';
import { run, testConfig, testContext } from './tool-context.js';

const issue = (
  number: number,
  title: string,
  labels: string[],
  extra: Record<string, unknown> = {},
) => ({
  number,
  title,
  state: 'open',
  html_url: `https://github.test/o/r/issues/${number}`,
  labels: labels.map((name) => ({ name })),
  ...extra,
});

let api: LocalServer;

/** A stand-in for the GitHub REST API that records what it was sent. */
beforeAll(async () => {
  api = await startServer((req, res, body) => {
    res.setHeader('content-type', 'application/json; charset=utf-8');
    const url = new URL(req.url ?? '/', 'http://x');
    if (req.headers.authorization !== 'token t0ken') {
      res.statusCode = 401;
      return res.end(JSON.stringify({ message: 'Bad credentials' }));
    }
    if (url.pathname === '/repos/octo/garden/issues' && req.method === 'GET') {
      return res.end(
        JSON.stringify([
          issue(3, 'Water the tomatoes', ['chore', 'garden']),
          issue(2, 'A pull request', [], { pull_request: { url: 'x' } }),
          issue(1, 'Fix the fence', []),
        ]),
      );
    }
    if (url.pathname === '/repos/octo/garden/issues' && req.method === 'POST') {
      const input = JSON.parse(body) as { title: string };
      res.statusCode = 201;
      return res.end(JSON.stringify(issue(42, input.title, [])));
    }
    if (url.pathname === '/repos/octo/empty/issues') return res.end('[]');
    res.statusCode = 404;
    res.end(JSON.stringify({ message: 'Not Found' }));
  });
});

afterAll(() => api.close());
beforeEach(() => {
  api.requests.length = 0;
});

const ctx = (extra: Record<string, unknown> = {}) =>
  testContext(testConfig({ 'github.token': 't0ken', 'github.base_url': api.url, ...extra }));

describe('github tools', () => {
  it('lists open issues without pull requests, passing state and labels', async () => {
    const out = await run(
      githubListIssues,
      { owner: 'octo', repo: 'garden', labels: ['chore', 'garden'] },
      ctx(),
    );
    expect(out).toBe(
      [
        '#3 [open] Water the tomatoes (labels: chore, garden) — https://github.test/o/r/issues/3',
        '#1 [open] Fix the fence — https://github.test/o/r/issues/1',
      ].join('\n'),
    );
    const sent = new URL(api.requests[0]?.url ?? '', 'http://x');
    expect(sent.pathname).toBe('/repos/octo/garden/issues');
    expect(sent.searchParams.get('state')).toBe('open');
    expect(sent.searchParams.get('labels')).toBe('chore,garden');
    expect(api.requests[0]?.headers['user-agent']).toMatch(/^Steward/);
  });

  it('passes state=all and says when there are none', async () => {
    expect(await run(githubListIssues, { owner: 'octo', repo: 'empty', state: 'all' }, ctx())).toBe(
      'No all issues in octo/empty.',
    );
    expect(new URL(api.requests[0]?.url ?? '', 'http://x').searchParams.get('state')).toBe('all');
  });

  it('creates an issue with title, body and labels', async () => {
    const out = await run(
      githubCreateIssue,
      {
        owner: 'octo',
        repo: 'garden',
        title: 'Buy seeds',
        body: 'Cherry tomatoes',
        labels: ['shopping'],
      },
      ctx(),
    );
    expect(out).toBe('Created issue #42 in octo/garden: https://github.test/o/r/issues/42');
    expect(api.requests[0]?.method).toBe('POST');
    expect(JSON.parse(api.requests[0]?.body ?? '{}')).toEqual({
      title: 'Buy seeds',
      body: 'Cherry tomatoes',
      labels: ['shopping'],
    });
  });

  it('turns API failures into tool errors', async () => {
    await expect(run(githubListIssues, { owner: 'octo', repo: 'nope' }, ctx())).rejects.toThrow(
      /GitHub refused to list issues: HTTP 404/,
    );
    const badToken = testContext(
      testConfig({ 'github.token': 'wrong', 'github.base_url': api.url }),
    );
    await expect(
      run(githubListIssues, { owner: 'octo', repo: 'garden' }, badToken),
    ).rejects.toThrow(/HTTP 401/);
  });

  it('goes through egress: an address not on the allowlist is never contacted', async () => {
    const blocked = ctx({ 'egress.allow': ['10.0.0.0/8'] });
    await expect(run(githubListIssues, { owner: 'octo', repo: 'garden' }, blocked)).rejects.toThrow(
      /blocked: 127\.0\.0\.1 is a loopback address/,
    );
    expect(api.requests).toHaveLength(0);
  });
});
