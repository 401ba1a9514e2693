import { AppError } from './catalogue.js';

/** The configuration cannot be read or is invalid; start-up stops with this message. */
export class ConfigError extends AppError {
  constructor(message: string) {
    super('config_invalid', message);
    this.name = 'ConfigError';
  }
}
