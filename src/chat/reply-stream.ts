import type { ChatEvent } from '../engine/event-hub.js';
import type { ChatProvider } from './provider.js';
import { splitMessage } from './split-message.js';

export interface ReplyStreamOptions {
  provider: Pick<ChatProvider, 'send' | 'edit' | 'typing' | 'maxMessageChars'>;
  chatId: string;
  /** Least time between two edits of one message (Telegram takes about one per second per chat). */
  editIntervalMs: number;
  /** Typing indicators last ~5 s on Telegram; one is sent this often while the engine works. */
  typingIntervalMs?: number;
  onError: (err: unknown) => void;
}

export interface ReplyStream {
  /**
   * Feeds one chat event of the turn, already redacted (`engine/conversation.ts`); resolves the
   * `finished` promise on `done` or `error`.
   */
  push(event: ChatEvent): void;
  /** Ends the turn with a line of its own (a timeout, a prompt the engine refused). */
  fail(text: string): void;
  readonly finished: Promise<void>;
}

/**
 * A reply as chat messages: the first text creates a message, later text edits it (at most once
 * per `editIntervalMs`), and past the platform's limit the text continues in new messages, cut
 * at line or word boundaries. The text comes from the conversation's streaming redactor, which
 * releases text only once no secret can begin in it, so a secret is never split across two
 * messages either.
 */
export function createReplyStream(options: ReplyStreamOptions): ReplyStream {
  const { provider, chatId } = options;
  const sent: Array<{ id: string; text: string }> = [];
  let text = '';
  let ended = false;
  let syncing: Promise<void> = Promise.resolve();
  let timer: NodeJS.Timeout | null = null;
  let lastSync = 0;
  let finish!: () => void;
  const finished = new Promise<void>((resolve) => (finish = resolve));

  const typing = () => void provider.typing(chatId).catch(() => {});
  typing();
  const typingTimer = setInterval(typing, options.typingIntervalMs ?? 4000);

  // Brings the messages in the chat in line with `text`: earlier pieces are stable (the split
  // is greedy from the start), so only the last message is edited and new ones are appended.
  async function sync(): Promise<void> {
    lastSync = Date.now();
    const pieces = text.length > 0 ? splitMessage(text, provider.maxMessageChars) : [];
    for (let i = 0; i < pieces.length; i++) {
      const piece = pieces[i] as string;
      const message = sent[i];
      if (!message) {
        if (piece.trim() === '') continue;
        sent.push({ id: await provider.send(chatId, piece), text: piece });
      } else if (message.text !== piece) {
        await provider.edit(chatId, message.id, piece);
        message.text = piece;
      }
    }
  }

  const queueSync = () => {
    syncing = syncing.then(sync).catch(options.onError);
    return syncing;
  };

  const schedule = () => {
    if (timer || ended) return;
    const wait = Math.max(0, lastSync + options.editIntervalMs - Date.now());
    timer = setTimeout(() => {
      timer = null;
      void queueSync();
    }, wait);
  };

  const end = (tail: string) => {
    if (ended) return;
    ended = true;
    clearInterval(typingTimer);
    if (timer) clearTimeout(timer);
    timer = null;
    text += tail;
    if (text.trim() === '') text = '(the assistant sent no text)';
    void queueSync().finally(finish);
  };

  return {
    push(event) {
      if (ended) return;
      if (event.type === 'text') {
        text += event.content;
        schedule();
      } else if (event.type === 'error') {
        end(`${text ? '\n\n' : ''}${event.content}`);
      } else {
        end('');
      }
    },
    fail(line) {
      end(`${text ? '\n\n' : ''}${line}`);
    },
    finished,
  };
}
