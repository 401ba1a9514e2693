import { EgressError, type EgressRequest, type EgressResponse } from '../../net/egress.js';
import { ToolError } from '../../errors/tool-error.js';
import type { ToolContext } from '../tool-types.js';

/** Outbound request for a tool: egress refusals become ToolErrors the AI can read. */
export async function toolFetch(
  ctx: ToolContext,
  url: string,
  request: EgressRequest = {},
): Promise<EgressResponse> {
  try {
    return await ctx.egress.fetch(url, { ...request, signal: ctx.signal });
  } catch (err) {
    if (err instanceof EgressError) throw new ToolError(err.message);
    throw err;
  }
}

/** Decodes a body with the charset its content type names (UTF-8 otherwise). */
export function decodeBody(body: Buffer, contentType: string | undefined): string {
  const charset = /charset="?([^";\s]+)/i.exec(contentType ?? '')?.[1] ?? 'utf-8';
  try {
    return new TextDecoder(charset).decode(body);
  } catch {
    return new TextDecoder('utf-8').decode(body);
  }
}
