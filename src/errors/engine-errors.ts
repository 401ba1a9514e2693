import { createError } from './catalogue.js';

/**
 * 503 `engine_unavailable`: the AI engine is down, slow, failing or refused our credentials. Never
 * a 500: the API itself is healthy.
 */
export const EngineUnavailableError = createError(
  'engine_unavailable',
  'EngineUnavailableError',
  (message: string) => message,
);
export type EngineUnavailableError = InstanceType<typeof EngineUnavailableError>;
