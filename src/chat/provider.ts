import type { ChatProviderName } from '../contracts/provider-names.js';

/** A text message someone wrote to the bot. */
export interface InboundMessage {
  provider: ChatProviderName;
  /** Where to answer (Telegram: the numeric chat id). */
  chatId: string;
  userId: string;
  /** For the administrator's eyes (pairing list); never trusted for access. */
  userName: string;
  text: string;
  /** The bot's message this one answers (a reply), if any. */
  replyTo?: string;
}

/** A tap on a button of one of the bot's messages. */
export interface InboundAction {
  provider: ChatProviderName;
  chatId: string;
  userId: string;
  /** The message whose button was tapped. */
  messageId: string;
  /** What the button carries (set by the bot when it sent the message). */
  data: string;
  /** Shows the tapper a short notice (and ends the button's spinner). */
  answer(text: string): Promise<void>;
}

export interface InboundHandlers {
  message(message: InboundMessage): void;
  action(action: InboundAction): void;
}

/** A button under a message; `data` comes back in the InboundAction (Telegram: ≤ 64 bytes). */
export interface ChatButton {
  label: string;
  data: string;
}

export interface SendOptions {
  /** One row of buttons under the message. */
  buttons?: ChatButton[];
  /** Asks the client to open a reply to this message (the answer comes with `replyTo`). */
  forceReply?: boolean;
}

export interface ProviderStatus {
  state: 'stopped' | 'starting' | 'running' | 'error';
  error?: string;
}

/**
 * One chat platform. Sending works in any process (it is a call to the platform's API); only the
 * gateway's leader receives, since platforms such as Telegram allow one poller per bot.
 */
export interface ChatProvider {
  readonly name: ChatProviderName;
  /** The platform's longest message, in characters. */
  readonly maxMessageChars: number;
  /** Starts receiving; resolves once receiving runs. */
  start(handlers: InboundHandlers): Promise<void>;
  stop(): Promise<void>;
  /** Sends a message; resolves with its id (for edits). */
  send(chatId: string, text: string, options?: SendOptions): Promise<string>;
  /** Replaces a message's text; its buttons go unless given again. */
  edit(chatId: string, messageId: string, text: string, options?: SendOptions): Promise<void>;
  /** Shows "typing…" for a few seconds. */
  typing(chatId: string): Promise<void>;
  status(): ProviderStatus;
}
