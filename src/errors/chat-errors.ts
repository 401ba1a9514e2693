import { AppError } from './catalogue.js';

export interface ChatSendDetails extends Record<string, unknown> {
  /** false: the platform answered that it did not take the message; 'unknown': it may have. */
  sent: false | 'unknown';
  /** Trying again will not help (unknown chat, bot blocked, message refused). */
  permanent: boolean;
}

/** A call to a chat platform failed; the text is already free of tokens and secrets. */
export class ChatSendError extends AppError<ChatSendDetails> {
  declare readonly details: ChatSendDetails;
  constructor(message: string, details: ChatSendDetails) {
    super('chat_send_failed', message, details, false);
    this.name = 'ChatSendError';
  }
}
