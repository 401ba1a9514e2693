import { randomBytes } from 'node:crypto';
import { ScriptRefusedError } from '../errors/script-errors.js';
import type { Logger } from '../log/logger.js';
import { unifiedDiff } from '../scripts/diff.js';
import type { ScriptRecord } from '../scripts/script-schema.js';
import type { ScriptChange, ScriptService } from '../scripts/script-service.js';
import type { ChatRepository, StoredApproval } from '../store/chat-repository.js';
import type { ChatProvider, ChatProviderName, InboundAction, InboundMessage } from './provider.js';

export interface ApprovalsConfig {
  provider: ChatProviderName;
  channel_id: string;
  user_id?: string | undefined;
  ttl: number;
}

export interface ScriptApprovalsDeps {
  config: ApprovalsConfig;
  /** The provider for sending (any process may announce; the leader receives the taps). */
  provider: (name: ChatProviderName) => Promise<ChatProvider | null>;
  repo: Pick<
    ChatRepository,
    | 'claimAnnouncement'
    | 'openApproval'
    | 'approval'
    | 'openApprovalOf'
    | 'openApprovals'
    | 'closeApproval'
    | 'markApproval'
    | 'setApprovalMessage'
    | 'awaitReason'
    | 'approvalAnswering'
  >;
  scripts: Pick<ScriptService, 'get' | 'approve' | 'reject' | 'versions' | 'version'>;
  /** Who a decision from chat is recorded as (`approved_by`): the admin account's name. */
  adminName: () => Promise<string>;
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

/** The body of a request may use this much of a message; the diff is cut to fit. */
const MAX_REQUEST_CHARS = 3500;

/**
 * Script reviews in the administrator's chat (DESIGN "Chat gateway", approvals): each version
 * that becomes pending is sent with its name, short hash, author, declared secrets with their
 * destinations and the diff against the last approved version, under Approve / Reject buttons
 * that carry the request's id. The request holds the hash shown, and a tap approves exactly that
 * hash: if the script changed since, nothing is approved. Only the configured user decides;
 * Reject asks for a reason as a reply. Requests expire after `ttl`; a decision made elsewhere
 * (API, UI) edits the request to say so.
 */
export function createScriptApprovals(deps: ScriptApprovalsDeps): ScriptApprovals {
  const { config, repo, scripts, log } = deps;
  const now = deps.now ?? Date.now;
  const approver = config.user_id ?? config.channel_id;
  const keepMs = config.ttl + 7 * 24 * 3600 * 1000;

  async function lastApprovedSource(record: ScriptRecord): Promise<string | null> {
    if (!record.approved_hash) return null;
    for (const entry of (await scripts.versions(record.name)).slice(0, 50)) {
      const version = await scripts.version(record.name, entry.commit);
      if (version?.hash === record.approved_hash) return version.source;
    }
    return null;
  }

  async function requestText(record: ScriptRecord, maxChars: number): Promise<string> {
    const [latest] = await scripts.versions(record.name);
    const author = latest?.author ?? record.metadata.author;
    const short = record.hash.replace(/^sha256:/, '').slice(0, 12);
    const destinations = record.metadata.secret_destinations ?? {};
    const secrets = record.metadata.secrets.map((name) => {
      const bound = destinations[name];
      return bound ? `${name} → ${bound.join(', ')}` : `${name} (any destination)`;
    });
    const before = await lastApprovedSource(record);
    const body = before === null ? record.source : unifiedDiff(record.name, before, record.source);
    const head = [
      `Review ${record.name} (${before === null ? 'new' : 'changed since its approval'})`,
      `hash ${short} · by ${author}${author === 'mcp' ? ' (written by the AI)' : ''}`,
      `secrets: ${secrets.length ? secrets.join('; ') : 'none'}`,
      '',
    ].join('\n');
    // Room for a footer ("Approved by …") when the request is edited with its outcome.
    const room = Math.min(MAX_REQUEST_CHARS, maxChars - 300) - head.length;
    const shown =
      body.length <= room
        ? body
        : `${body.slice(0, room - 80)}\n… (${body.length - room + 80} more characters: review the rest in the web UI or the API)`;
    return deps.redact(head + shown);
  }

  const buttons = (id: string) => [
    { label: 'Approve', data: `ap:${id}` },
    { label: 'Reject', data: `rj:${id}` },
  ];

  async function edit(request: StoredApproval, footer: string): Promise<void> {
    const provider = await deps.provider(request.provider as ChatProviderName);
    if (!provider) return;
    await provider
      .edit(request.chat_id, request.message_id, `${request.text}\n\n${footer}`)
      .catch((err: unknown) =>
        log.warn({ err, script: request.script }, 'approval request not edited'),
      );
  }

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
    const text = await requestText(record, provider.maxMessageChars);
    // Stored before its message goes out: a tap that comes at once finds it.
    const request: StoredApproval = {
      id,
      script: record.name,
      hash: record.hash,
      provider: config.provider,
      chat_id: config.channel_id,
      message_id: '',
      text,
      approver_id: approver,
      created_at: new Date(now()).toISOString(),
      expires_at: now() + config.ttl,
      state: 'open',
    };
    const previous = await repo.openApproval(request, keepMs);
    if (previous) {
      const closed = await repo.closeApproval({ id: previous, script: record.name }, 'superseded');
      if (closed) await edit(closed, 'Superseded: a newer version was sent for review.');
    }
    try {
      request.message_id = await provider.send(config.channel_id, text, { buttons: buttons(id) });
    } catch (err) {
      await repo.closeApproval(request, 'superseded');
      throw err;
    }
    await repo.setApprovalMessage(id, request.message_id);
  }

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

  const audit = (event: string, fields: Record<string, string>) =>
    log.info({ audit: true, event, ...fields }, event);

  return {
    async onScriptChange(change) {
      if (change.kind === 'pending') await announce(change.record);
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
      // Closed first: a second tap, or a decision elsewhere at the same moment, finds it closed.
      const closed = await repo.closeApproval(request, 'approved');
      if (!closed) {
        await action.answer('This review was decided meanwhile.');
        return true;
      }
      try {
        await scripts.approve(request.script, admin, request.hash);
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
      const provider = await deps.provider(request.provider as ChatProviderName);
      const say = (text: string) => provider?.send(message.chatId, text).catch(() => '');
      const closed = await repo.closeApproval(request, 'rejected');
      if (!closed) {
        await say(`The review of ${request.script} was decided meanwhile; nothing changed.`);
        return true;
      }
      const admin = await deps.adminName();
      const reason = message.text.trim().slice(0, 1000);
      try {
        await scripts.reject(request.script, admin, reason, request.hash);
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
        const closed = await repo.closeApproval(request, 'expired');
        if (!closed) continue;
        count++;
        await edit(closed, 'Expired without a decision; review it in the web UI or the API.');
      }
      return count;
    },
  };
}
