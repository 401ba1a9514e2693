/** The chat platforms of DESIGN "Chat gateway" (schedules' `output_target.provider` minus webhook). */
export const chatProviderNames = ['telegram', 'discord', 'slack'] as const;
export type ChatProviderName = (typeof chatProviderNames)[number];

/** A text message someone wrote to the bot. */
export interface InboundMessage {
  provider: ChatProviderName;
  /** Where to answer (Telegram: the numeric chat id). */
  chatId: string;
  userId: string;
  /** For the administrator's eyes (pairing list); never trusted for access. */
  userName: string;
  text: string;
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
  /** Starts receiving; resolves once receiving runs. `onMessage` handles one message at a time per chat. */
  start(onMessage: (message: InboundMessage) => void): Promise<void>;
  stop(): Promise<void>;
  /** Sends a message; resolves with its id (for edits). */
  send(chatId: string, text: string): Promise<string>;
  edit(chatId: string, messageId: string, text: string): Promise<void>;
  /** Shows "typing…" for a few seconds. */
  typing(chatId: string): Promise<void>;
  status(): ProviderStatus;
}
