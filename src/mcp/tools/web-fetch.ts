import { z } from 'zod';
import { ToolError } from '../../errors/tool-error.js';
import { defineTool } from '../tool-types.js';
import { htmlToMarkdown } from './html-to-markdown.js';
import { decodeBody, toolFetch } from './tool-fetch.js';

const accept =
  'text/html,application/xhtml+xml,text/plain;q=0.9,application/json;q=0.9,text/*;q=0.8';

export const webFetch = defineTool({
  name: 'web_fetch',
  description:
    'Fetch a web page and return its readable content as markdown (plain text and JSON are returned as they are).',
  inputSchema: z.object({
    url: z.string().min(1).describe('The http or https URL to fetch'),
    max_length: z
      .number()
      .int()
      .positive()
      .optional()
      .describe('Maximum number of characters to return; longer content is cut with a note'),
  }),
  handler: async (args, ctx) => {
    const limit = Math.min(args.max_length ?? ctx.config.web.max_length, ctx.config.web.max_length);
    const res = await toolFetch(ctx, args.url, {
      headers: { accept, 'user-agent': 'Steward/0.1 (web_fetch)' },
    });
    const contentType = res.headers['content-type'] ?? '';
    const mime = contentType.split(';')[0]?.trim().toLowerCase() ?? '';
    if (res.status >= 400) {
      const excerpt = decodeBody(res.body.subarray(0, 300), contentType)
        .replace(/\s+/g, ' ')
        .trim();
      throw new ToolError(`${res.url} answered HTTP ${res.status}${excerpt ? `: ${excerpt}` : ''}`);
    }
    let text: string;
    if (
      mime === 'text/html' ||
      mime === 'application/xhtml+xml' ||
      (mime === '' && looksLikeHtml(res.body))
    ) {
      const page = htmlToMarkdown(decodeBody(res.body, contentType), res.url);
      text = `${page.title ? `# ${page.title}\n\n` : ''}${page.markdown}`;
    } else if (
      mime.startsWith('text/') ||
      mime === 'application/json' ||
      mime.endsWith('+json') ||
      mime.endsWith('+xml') ||
      mime === ''
    ) {
      text = decodeBody(res.body, contentType);
    } else {
      throw new ToolError(
        `${res.url} returned ${mime}, which is not text; web_fetch reads HTML, text and JSON only`,
      );
    }
    const header = `Source: ${res.url}\n\n`;
    if (text.length <= limit) return header + text;
    return `${header}${text.slice(0, limit)}\n\n[truncated: showing ${limit} of ${text.length} characters; raise max_length to see more]`;
  },
});

function looksLikeHtml(body: Buffer): boolean {
  return /^\s*(<!doctype html|<html)/i.test(body.subarray(0, 200).toString('utf8'));
}
