import { newCapabilities, scriptCapabilities } from '../scripts/capabilities.js';
import type { ScriptCapabilities } from '../scripts/script-schema.js';
import type { ScriptRecord } from '../contracts/script-record.js';
import { splitMessage } from './split-message.js';

/** A review taking more messages than this is not shown in chat, and cannot be approved there. */
export const MAX_REVIEW_PARTS = 8;

/** Room the message with the buttons keeps for the footer an edit adds ("Approved by …"). */
export const FOOTER_ROOM = 300;

/** Room for a continuation part's "(k/n)" line. */
const PART_LABEL_ROOM = 16;

export interface ReviewText {
  /** The messages in order; the last one carries the buttons. */
  parts: string[];
  /**
   * Whether every line of the text under review is in `parts`. When it is not (too long for
   * chat), the request offers no Approve button and a tap on one is refused.
   */
  complete: boolean;
}

export interface ReviewInput {
  record: ScriptRecord;
  /** Who wrote the version under review. */
  author: string;
  /** The last approved text; null when the script was never approved. */
  before: string | null;
  /** The unified diff of `before` → the record's source (when `before` is set). */
  diff: string;
  /** `scripts.secret_egress`: where a secret declared without `->` may go. */
  secretEgress: 'bound' | 'any';
  /** The web UI's address as the administrator opens it, for the link to a long review. */
  uiUrl?: string | undefined;
  maxChars: number;
  redact: (text: string) => string;
}

/** How a declared secret may leave, as the review shows it. */
export function secretLine(
  name: string,
  hosts: readonly string[] | undefined,
  secretEgress: 'bound' | 'any',
  placement: string | null = null,
): string {
  const place = placement === null ? '' : ` (in ${placement})`;
  if (hosts?.length) return `${name} → ${hosts.join(', ')}${place}`;
  return secretEgress === 'any'
    ? `${name} (no destination declared: scripts.secret_egress "any" lets it go to any host)`
    : `${name} (no destination declared: it cannot be sent anywhere unless scripts.secret_egress is "any")`;
}

/**
 * What the text can reach, read by Steward from the text, above the diff: each item new against
 * the last approved version marked "NEW", and characters a reviewer cannot see with where they
 * are. `fresh` is null for a script never approved (everything is new then).
 */
export function capabilityLines(
  caps: ScriptCapabilities,
  fresh: ScriptCapabilities | null,
  secretEgress: 'bound' | 'any',
): string[] {
  const mark = (isNew: boolean) => (isNew && fresh !== null ? ' NEW' : '');
  const list = (label: string, items: string[], added: string[] | undefined) =>
    `${label}: ${items.length ? items.map((x) => `${x}${mark(added?.includes(x) ?? false)}`).join(', ') : 'none'}`;
  const newSecrets = new Set(fresh?.secrets.map((s) => s.name));
  const secrets = caps.secrets.map(
    (s) =>
      `${secretLine(s.name, s.destinations, secretEgress, s.placement)}${mark(newSecrets.has(s.name))}`,
  );
  const lines = [
    `secrets: ${secrets.length ? secrets.join('; ') : 'none'}`,
    list('hosts in the code', caps.hosts, fresh?.hosts),
    list('modules', caps.modules, fresh?.modules),
    list('functions', caps.functions, fresh?.functions),
  ];
  if (caps.hidden_characters.length > 0) {
    const shown = caps.hidden_characters
      .slice(0, 5)
      .map((c) => `${c.code} ${c.name} at ${c.line}:${c.column}`);
    const more = caps.hidden_characters.length - shown.length;
    lines.push(
      `⚠ invisible or direction-changing characters: ${shown.join('; ')}${more > 0 ? ` and ${more} more` : ''}`,
    );
  }
  return lines;
}

/**
 * The text of a review request: what it is, its hash and author, what it can reach (secrets and
 * where they may go, hosts, modules, functions, hidden characters; new ones marked), then the whole source (never approved) or the diff against the last approved text. A text
 * longer than one message is sent in parts, every one before the buttons, so a tap approves only
 * what reached the chat line by line; one longer than `MAX_REVIEW_PARTS` messages is not shown
 * but pointed to in the web UI. Redacted as a whole before it is split: a secret's value in the
 * source is never cut where the redactor could not see it.
 */
export function reviewText(input: ReviewInput): ReviewText {
  const { record, author } = input;
  const short = record.hash.replace(/^sha256:/, '').slice(0, 12);
  const caps = scriptCapabilities(record.name, record.source);
  const fresh =
    input.before === null
      ? null
      : newCapabilities(caps, scriptCapabilities(record.name, input.before));
  const title = `Review ${record.name} (${input.before === null ? 'new' : 'changed since its approval'})`;
  const by = `hash ${short} · by ${author}${author === 'mcp' ? ' (written by the AI)' : ''}`;
  const declared = capabilityLines(caps, fresh, input.secretEgress).join('\n');
  const body = input.before === null ? record.source : input.diff;
  const room = input.maxChars - FOOTER_ROOM - PART_LABEL_ROOM;
  const pieces = splitMessage(input.redact(`${title}\n${by}\n${declared}\n\n${body}`), room);
  if (pieces.length <= MAX_REVIEW_PARTS) {
    const parts = pieces.map((piece, i) =>
      i === 0 ? piece : `(${i + 1}/${pieces.length})\n${piece}`,
    );
    return { parts, complete: true };
  }
  const base = (input.uiUrl ?? '').replace(/\/+$/, '');
  const link = `${base}/scripts/${encodeURIComponent(record.name)}/review`;
  const what = input.before === null ? 'Its source' : 'The change';
  const notice = `${what} is ${body.length} characters, more than ${MAX_REVIEW_PARTS} messages: too long to show here, so it cannot be approved from chat. Review it in the web UI: ${link}`;
  // The notice before what it can reach: a very long list is what gets cut.
  const text = input.redact(`${title}\n${by}\n${notice}\n${declared}`);
  return { parts: [text.slice(0, room)], complete: false };
}
