import { Octokit } from '@octokit/rest';
import { z } from 'zod';
import { EgressError } from '../../net/egress.js';
import { egressFetch } from '../../net/fetch-adapter.js';
import { ToolError } from '../../errors/tool-error.js';
import { defineTool, type ToolContext, type ToolDefinition } from '../tool-types.js';

const maxIssues = 100;

const owner = z.string().min(1).describe('Repository owner (user or organisation)');
const repo = z.string().min(1).describe('Repository name');

/** Octokit whose every request goes through egress, so the allowlist and limits apply. */
function client(ctx: ToolContext): Octokit {
  const { token, base_url } = ctx.config.github;
  if (!token) throw new ToolError('GitHub is not configured (github.token is not set)');
  return new Octokit({
    auth: token,
    baseUrl: base_url.replace(/\/+$/, ''),
    userAgent: 'Steward',
    request: { fetch: egressFetch(ctx.egress), signal: ctx.signal, retries: 0 },
    log: {
      debug: () => {},
      info: () => {},
      warn: (m: string) => ctx.logger.warn(m),
      error: (m: string) => ctx.logger.error(m),
    },
  });
}

async function call<T>(what: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (err) {
    if (err instanceof EgressError) throw new ToolError(err.message);
    const cause = (err as { cause?: unknown }).cause;
    if (cause instanceof EgressError) throw new ToolError(cause.message);
    const status = (err as { status?: number }).status;
    if (typeof status === 'number' && status > 0) {
      throw new ToolError(`GitHub refused to ${what}: HTTP ${status} ${(err as Error).message}`);
    }
    throw err;
  }
}

export const githubListIssues = defineTool({
  name: 'github_list_issues',
  description: 'List issues of a GitHub repository (pull requests are left out).',
  inputSchema: z.object({
    owner,
    repo,
    state: z
      .enum(['open', 'closed', 'all'])
      .optional()
      .describe('Which issues to list (default open)'),
    labels: z.array(z.string()).optional().describe('Only issues carrying all of these labels'),
  }),
  handler: async (args, ctx) => {
    const octokit = client(ctx);
    const { data } = await call('list issues', () =>
      octokit.rest.issues.listForRepo({
        owner: args.owner,
        repo: args.repo,
        state: args.state ?? 'open',
        per_page: maxIssues,
        ...(args.labels?.length ? { labels: args.labels.join(',') } : {}),
      }),
    );
    const issues = data.filter((issue) => !issue.pull_request);
    if (issues.length === 0)
      return `No ${args.state ?? 'open'} issues in ${args.owner}/${args.repo}.`;
    return issues
      .map((issue) => {
        const labels = issue.labels
          .map((label) => (typeof label === 'string' ? label : label.name))
          .filter(Boolean);
        return `#${issue.number} [${issue.state}] ${issue.title}${labels.length ? ` (labels: ${labels.join(', ')})` : ''} — ${issue.html_url}`;
      })
      .join('\n');
  },
});

export const githubCreateIssue = defineTool({
  name: 'github_create_issue',
  description: 'Create an issue in a GitHub repository.',
  inputSchema: z.object({
    owner,
    repo,
    title: z.string().min(1).describe('Issue title'),
    body: z.string().optional().describe('Issue description in markdown'),
    labels: z.array(z.string()).optional().describe('Labels to put on the issue'),
  }),
  handler: async (args, ctx) => {
    const octokit = client(ctx);
    const { data } = await call('create the issue', () =>
      octokit.rest.issues.create({
        owner: args.owner,
        repo: args.repo,
        title: args.title,
        ...(args.body !== undefined ? { body: args.body } : {}),
        ...(args.labels?.length ? { labels: args.labels } : {}),
      }),
    );
    return `Created issue #${data.number} in ${args.owner}/${args.repo}: ${data.html_url}`;
  },
});

export function githubTools(): ToolDefinition[] {
  return [githubListIssues, githubCreateIssue];
}
