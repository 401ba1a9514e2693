import { randomBytes } from 'node:crypto';
import type { ScriptRecord } from '../contracts/script-record.js';
import { unifiedDiff } from '../scripts/diff.js';
import type { StoredApproval } from '../store/chat-approval-repository.js';
import { reviewText } from './review-request.js';
import type { ScriptApprovalsDeps } from './script-approvals.js';

export interface ReviewAnnouncerDeps extends Pick<
  ScriptApprovalsDeps,
  'config' | 'repo' | 'provider' | 'scripts' | 'secretEgress' | 'redact' | 'log'
> {
  /** How long a request is kept after it was sent (its ttl and a week for late taps). */
  keepMs: number;
  /** The one user id whose taps decide. */
  approver: string;
  now: () => number;
  /** Edits a request's message with a footer (a superseded request says so). */
  edit: (request: StoredApproval, footer: string) => Promise<void>;
}

/**
 * Sends the review request of a version that became pending: once per version cluster-wide, the
 * text in parts with the buttons under the last, the request stored before its messages go out.
 */
export function createReviewAnnouncer(deps: ReviewAnnouncerDeps) {
  const { config, repo, scripts, log, keepMs, approver, now, edit } = deps;

  async function requestParts(record: ScriptRecord, maxChars: number) {
    const [latest] = await scripts.versions(record.name);
    const before = (await scripts.approvedVersion(record))?.source ?? null;
    return reviewText({
      record,
      author: latest?.author ?? record.metadata.author,
      before,
      diff: before === null ? '' : unifiedDiff(record.name, before, record.source),
      secretEgress: deps.secretEgress,
      uiUrl: config.ui_url,
      maxChars,
      redact: deps.redact,
    });
  }

  const buttons = (id: string, approvable: boolean) => [
    ...(approvable ? [{ label: 'Approve', data: `ap:${id}` }] : []),
    { label: 'Reject', data: `rj:${id}` },
  ];

  async function announce(record: ScriptRecord): Promise<void> {
    // One request per version (its commit), whichever process stored it; a text that comes back
    // in a later version gets a request again.
    if (!(await repo.claimAnnouncement(record.name, record.head, keepMs))) return;
    const provider = await deps.provider(config.provider);
    if (!provider) {
      log.warn({ provider: config.provider }, 'approval requests: the chat provider is not ready');
      return;
    }
    const id = randomBytes(9).toString('base64url');
    const { parts, complete } = await requestParts(record, provider.maxMessageChars);
    const last = parts.length - 1;
    // Stored before its messages go out: a tap that comes at once finds it.
    const request: StoredApproval = {
      id,
      script: record.name,
      hash: record.hash,
      provider: config.provider,
      chat_id: config.channel_id,
      message_id: '',
      text: parts[last] ?? '',
      approver_id: approver,
      created_at: new Date(now()).toISOString(),
      expires_at: now() + config.ttl,
      state: 'open',
      approvable: complete,
    };
    const previous = await repo.openApproval(request, keepMs);
    if (previous) {
      const closed = await repo.closeApproval({ id: previous, script: record.name }, 'superseded');
      if (closed) await edit(closed, 'Superseded: a newer version was sent for review.');
    }
    try {
      // One after another, the buttons under the last: a tap proves every part was sent. A part
      // that fails leaves the request closed and its buttons never sent.
      for (const [i, part] of parts.entries()) {
        const options = i === last ? { buttons: buttons(id, complete) } : {};
        const messageId = await provider.send(config.channel_id, part, options);
        if (i === last) request.message_id = messageId;
      }
    } catch (err) {
      await repo.closeApproval(request, 'superseded');
      throw err;
    }
    await repo.setApprovalMessage(id, request.message_id);
  }

  return { announce };
}
