import { AppError } from './catalogue.js';

/**
 * A failure meant for the AI, not a crash: the tool server turns it into an `isError: true`
 * result whose text is this message, so it should say what went wrong and what to try instead.
 */
export class ToolError extends AppError {
  constructor(message: string) {
    super('tool_failed', message);
    this.name = 'ToolError';
  }
}
