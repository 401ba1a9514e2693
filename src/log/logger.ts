import { pino, type Logger, type LoggerOptions } from 'pino';

export type { Logger };

/**
 * Paths that may carry credentials. Pino removes them before a line is written, so a careless
 * `log.info({req})` can never leak a cookie, a token or a password.
 */
export const redactPaths = [
  'req.headers.authorization',
  'req.headers.cookie',
  'res.headers["set-cookie"]',
  'headers.authorization',
  'headers.cookie',
  'password',
  'confirm_password',
  'value',
  'token',
  'access_token',
  'refresh_token',
  '*.password',
  '*.token',
  '*.value',
];

export function createLogger(level: string, options: LoggerOptions = {}): Logger {
  return pino({
    level,
    redact: { paths: redactPaths, censor: '[hidden]' },
    base: { pid: process.pid },
    ...options,
  });
}

/** Logs go to stderr so that `steward mcp` keeps stdout for protocol messages only. */
export function createStderrLogger(level: string): Logger {
  return pino(
    { level, redact: { paths: redactPaths, censor: '[hidden]' }, base: { pid: process.pid } },
    pino.destination(2),
  );
}
