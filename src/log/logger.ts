import { createRequire } from 'node:module';
import { isatty } from 'node:tty';
import { pino, type DestinationStream, type Logger, type LoggerOptions } from 'pino';
import type { MessageFormatFunc } from 'pino-pretty';
import type { Config } from '../config/schema.js';

export type { Logger };
export type LogFormat = Config['log']['format'];

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

/**
 * Marks a line the person starting Steward has to read (where the UI is, the first-run setup,
 * which model answers): the readable format prints it bold behind `»`; in JSON it is a field.
 */
export const headline = { headline: true } as const;

export interface CreateLoggerOptions extends LoggerOptions {
  /** `auto`: readable lines when the destination is a terminal, else JSON. Default `json`. */
  format?: LogFormat;
}

function baseOptions(level: string): LoggerOptions {
  return { level, redact: { paths: redactPaths, censor: '[hidden]' }, base: { pid: process.pid } };
}

export function createLogger(level: string, options: CreateLoggerOptions = {}): Logger {
  const { format = 'json', ...pinoOptions } = options;
  const settings = { ...baseOptions(level), ...pinoOptions };
  return readable(format, 1) ? pino(settings, readableDestination(1)) : pino(settings);
}

/** Logs go to stderr so that `steward mcp` keeps stdout for protocol messages only. */
export function createStderrLogger(level: string, format: LogFormat = 'json'): Logger {
  return pino(
    baseOptions(level),
    readable(format, 2) ? readableDestination(2) : pino.destination(2),
  );
}

function readable(format: LogFormat, fd: 1 | 2): boolean {
  return format === 'pretty' || (format === 'auto' && isatty(fd));
}

const load = createRequire(import.meta.url);

/**
 * pino-pretty's formatter, run on this thread and written synchronously. Not pino's transport:
 * that is a worker thread (measured here: 130–340 ms before its first line and 11 MB more
 * memory) writing after the fact, so a line logged just before `process.exit` could be lost;
 * a terminal needs neither its throughput nor its isolation. Loaded only when chosen (≈60 ms).
 */
function readableDestination(fd: 1 | 2): DestinationStream {
  const pretty = load('pino-pretty') as typeof import('pino-pretty');
  const prettify = pretty.prettyFactory({
    colorize: pretty.isColorSupported && isatty(fd),
    translateTime: 'SYS:HH:MM:ss',
    ignore: 'pid,hostname,component,headline',
    // Messages in the terminal's own colour, so that the headlines' colour stands out.
    customColors: 'message:reset',
    useOnlyCustomProps: false,
    // The other fields follow the message as one JSON object: JSON also escapes what they hold.
    singleLine: true,
    messageFormat,
  });
  const out = pino.destination({ dest: fd, sync: true });
  // A closed terminal answers EIO (pino drops only a closed pipe's EPIPE): nobody reads these
  // lines any more, and the shutdown that the hang-up starts must not die of its own log line.
  let open = true;
  out.on('error', () => (open = false));
  return {
    write(line: string) {
      if (open) out.write(prettify(line));
    },
  };
}

// Escape sequences in a message (a chat user's name, an engine's error) could rewrite the
// terminal, and a newline could fake a line of its own: continuation lines are indented.
const unsafeControl = /[\u0000-\u0008\u000B-\u001F\u007F-\u009F]/g;
const clean = (text: string) => text.replace(unsafeControl, '').replace(/\n/g, '\n    ');

const messageFormat: MessageFormatFunc = (log, messageKey, _level, { colors }) => {
  const message = clean(String(log[messageKey] ?? ''));
  const text = typeof log.component === 'string' ? `[${clean(log.component)}] ${message}` : message;
  if (log.headline !== true) return text;
  const tint = typeof log.level === 'number' && log.level >= 40 ? colors.yellow : colors.cyan;
  return colors.bold(tint(`» ${text}`));
};
