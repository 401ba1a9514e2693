import { ScriptRefusedError } from '../errors/script-errors.js';
import type { Logger } from '../log/logger.js';
import type { ScriptRecord } from '../contracts/script-record.js';
import type { ScriptChange } from '../scripts/script-events.js';
import type { ScriptService } from '../scripts/script-service.js';
import type { ChatApprovalRepository, StoredApproval } from '../store/chat-approval-repository.js';
import type { ChatProvider, InboundAction, InboundMessage } from './provider.js';
import type { ChatProviderName } from '../contracts/provider-names.js';
import { createReviewAnnouncer } from './review-announcer.js';

export interface ApprovalsConfig {
  provider: ChatProviderName;
  channel_id: string;
  user_id?: string | undefined;
  ttl: number;
  /** The web UI's address as the administrator opens it: a review too long for chat links there. */
  ui_url?: string | undefined;
}

export interface ScriptApprovalsDeps {
  config: ApprovalsConfig;
  /** The provider for sending (any process may announce; the leader receives the taps). */
  provider: (name: ChatProviderName) => Promise<ChatProvider | null>;
  repo: ChatApprovalRepository;
  scripts: Pick<ScriptService, 'get' | 'approve' | 'reject' | 'versions' | 'approvedVersion'>;
  /** Who a decision from chat is recorded as (`approved_by`): the admin account's name. */
  adminName: () => Promise<string>;
  /** `scripts.secret_egress`: how a secret declared without destinations is described. */
  secretEgress: 'bound' | 'any';
  redact: (text: string) => string;
  log: Logger;
  now?: () => number;
}

export interface ScriptApprovals {
  /** Follows the script service: sends requests for pending versions, closes decided ones. */
  onScriptChange(change: ScriptChange): Promise<void>;
  /** A button tap; false when the tap is not an approval's. */
  act(action: InboundAction): Promise<boolean>;
  /** A reply that may be a rejection reason; false when it is not one. */
  reason(message: InboundMessage): Promise<boolean>;
  /** Closes requests past their time, editing their messages to say so. */
  expire(): Promise<number>;
}

const expiredAnswer = 'This review expired: review it in the web UI or the API.';

/**
 * Script reviews in the administrator's chat (DESIGN "Chat gateway", approvals): each version
 * that becomes pending is sent with its name, short hash, author, declared secrets with their
 * destinations and the diff against the last approved version (`review-request.ts`: in several
 * messages when long, the Approve / Reject buttons under the last; too long for chat, no
 * Approve), the buttons carrying the request's id. The request holds the hash shown, and a tap
 * approves exactly that hash: if the script changed since, nothing is approved. Only the
 * configured user decides; Reject asks for a reason as a reply. Requests expire after `ttl`,
 * checked at each tap; a decision made elsewhere (API, UI) edits the request to say so.
 */
export function createScriptApprovals(deps: ScriptApprovalsDeps): ScriptApprovals {
  const { config, repo, scripts, log } = deps;
  const now = deps.now ?? Date.now;
  const approver = config.user_id ?? config.channel_id;
  const keepMs = config.ttl + 7 * 24 * 3600 * 1000;

  async function edit(request: StoredApproval, footer: string): Promise<void> {
    const provider = await deps.provider(request.provider as ChatProviderName);
    if (!provider) return;
    // A long footer (a rejection reason) is cut, never the text it follows.
    const text = `${request.text}\n\n${footer}`.slice(0, provider.maxMessageChars);
    await provider
      .edit(request.chat_id, request.message_id, text)
      .catch((err: unknown) =>
        log.warn({ err, script: request.script }, 'approval request not edited'),
      );
  }

  const announce = createReviewAnnouncer({ ...deps, keepMs, approver, now, edit });

  async function decidedElsewhere(record: ScriptRecord, verdict: string, by: string) {
    const id = await repo.openApprovalOf(record.name);
    if (!id) return;
    const closed = await repo.closeApproval(
      { id, script: record.name },
      verdict === 'approved' ? 'approved' : 'rejected',
    );
    if (closed)
      await edit(
        closed,
        `${verdict === 'approved' ? 'Approved' : 'Rejected'} by ${by} outside the chat.`,
      );
  }

  /** Closes an expired request and says so under it; false when someone closed it first. */
  async function expireRequest(request: StoredApproval): Promise<boolean> {
    const closed = await repo.closeApproval(request, 'expired');
    if (!closed) return false;
    await edit(closed, 'Expired without a decision; review it in the web UI or the API.');
    return true;
  }

  /** Why a close found the request no longer open: decided elsewhere, or it expired meanwhile. */
  async function closedAnswer(request: StoredApproval): Promise<string> {
    const current = await repo.approval(request.id);
    const open = current?.state === 'open' || current?.state === 'awaiting_reason';
    if (current && open && current.expires_at <= now()) {
      await expireRequest(current);
      return expiredAnswer;
    }
    return 'This review was decided meanwhile.';
  }

  const audit = (event: string, fields: Record<string, string>) =>
    log.info({ audit: true, event, ...fields }, event);

  return {
    async onScriptChange(change) {
      if (change.kind === 'pending') await announce.announce(change.record);
      else await decidedElsewhere(change.record, change.kind, change.by);
    },

    async act(action) {
      const match = /^(ap|rj):([\w-]+)$/.exec(action.data);
      if (!match) return false;
      const [, verb, id = ''] = match;
      const stored = await repo.approval(id);
      const request = stored && { ...stored, message_id: stored.message_id || action.messageId };
      if (!request || request.chat_id !== action.chatId || request.provider !== action.provider) {
        await action.answer('This review request is unknown.');
        return true;
      }
      if (action.userId !== request.approver_id) {
        log.warn(
          {
            audit: true,
            event: 'script.review.refused',
            script: request.script,
            user: action.userId,
            channel: action.provider,
          },
          'a chat user who is not the administrator tapped a review button',
        );
        await action.answer('Only the administrator can decide this review.');
        return true;
      }
      if (request.state !== 'open' && request.state !== 'awaiting_reason') {
        await action.answer(`This review is closed (${request.state}).`);
        return true;
      }
      // Checked at the tap, not only by the sweep: an expired request decides nothing.
      if (request.expires_at <= now()) {
        await expireRequest(request);
        await action.answer(expiredAnswer);
        return true;
      }
      const admin = await deps.adminName();
      if (verb === 'rj') {
        const provider = await deps.provider(request.provider as ChatProviderName);
        if (!provider) return true;
        const prompt = await provider.send(
          request.chat_id,
          `Reply to this message with the reason for rejecting ${request.script}.`,
          { forceReply: true },
        );
        await repo.awaitReason(request, prompt);
        await action.answer('Reply with the reason.');
        return true;
      }
      // Only a text whose every line reached the chat: a request too long to show has no
      // Approve button, and data forged from its Reject button's id finds this.
      if (request.approvable !== true) {
        await action.answer('Not all of this text could be shown here: review it in the web UI.');
        return true;
      }
      // Closed first: a second tap, or a decision elsewhere at the same moment, finds it closed.
      const closed = await repo.closeApproval(request, 'approved', now());
      if (!closed) {
        await action.answer(await closedAnswer(request));
        return true;
      }
      try {
        await scripts.approve(request.script, admin, request.hash, 'chat');
      } catch (err) {
        const modified = err instanceof ScriptRefusedError && err.details.reason === 'modified';
        await repo.markApproval(request, 'superseded');
        const why = modified
          ? 'The script changed since this was shown: nothing was approved. The new version comes as a new request.'
          : `Not approved: ${(err as Error).message}`;
        await edit(request, why);
        await action.answer(
          modified ? 'The script changed: nothing was approved.' : 'Not approved.',
        );
        return true;
      }
      audit('script.approved', {
        script: request.script,
        hash: request.hash,
        by: admin,
        channel: request.provider,
      });
      await edit(request, `Approved by ${admin} in ${request.provider}.`);
      await action.answer('Approved.');
      return true;
    },

    async reason(message) {
      if (!message.replyTo) return false;
      const id = await repo.approvalAnswering(message.provider, message.chatId, message.replyTo);
      if (!id) return false;
      const request = await repo.approval(id);
      if (!request || message.userId !== request.approver_id) return false;
      if (request.state === 'awaiting_reason' && request.expires_at <= now()) {
        await expireRequest(request);
        const provider = await deps.provider(request.provider as ChatProviderName);
        await provider
          ?.send(message.chatId, `${request.script}: ${expiredAnswer} Nothing changed.`)
          .catch(() => '');
        return true;
      }
      const provider = await deps.provider(request.provider as ChatProviderName);
      const say = (text: string) => provider?.send(message.chatId, text).catch(() => '');
      const closed = await repo.closeApproval(request, 'rejected', now());
      if (!closed) {
        const why = await closedAnswer(request);
        await say(`${request.script}: ${why} Nothing changed.`);
        return true;
      }
      const admin = await deps.adminName();
      const reason = message.text.trim().slice(0, 1000);
      try {
        await scripts.reject(request.script, admin, reason, request.hash, 'chat');
      } catch (err) {
        await repo.markApproval(request, 'superseded');
        await say(`Not rejected: ${(err as Error).message}`);
        return true;
      }
      audit('script.rejected', {
        script: request.script,
        hash: request.hash,
        by: admin,
        channel: request.provider,
      });
      await edit(request, `Rejected by ${admin} in ${request.provider}: ${reason}`);
      await say(`Rejected ${request.script}.`);
      return true;
    },

    async expire() {
      let count = 0;
      for (const request of await repo.openApprovals()) {
        if (request.expires_at > now()) continue;
        if (await expireRequest(request)) count++;
      }
      return count;
    },
  };
}
