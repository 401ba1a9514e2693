import {
  createOpencodeClient,
  type Event as EngineEvent,
  type Message,
  type OpencodeClient,
  type Part,
  type Provider,
  type Session,
} from '@opencode-ai/sdk/v2';
import type { Logger } from '../log/logger.js';
import { EngineUnavailableError } from '../errors/engine-errors.js';
import { toAppError } from './errors.js';

export type {
  EngineEvent,
  Message as EngineMessageInfo,
  Part as EnginePart,
  Provider as EngineProvider,
  Session as EngineSession,
};

/** A model as Steward names it. */
export interface ModelRef {
  provider: string;
  model: string;
}

export interface EngineMessage {
  info: Message;
  parts: Part[];
}

export interface EngineProviders {
  providers: Provider[];
  /** Default model per provider id. */
  default: Record<string, string>;
}

export interface EngineClientOptions {
  url: string;
  /** OPENCODE_SERVER_PASSWORD of the engine, if it has one (Basic auth, user `opencode`). */
  password?: string;
  log: Logger;
  /** Bound of every call except the blocking `prompt`. */
  requestTimeoutMs: number;
}

export interface EngineClient {
  readonly url: string;
  health(): Promise<{ healthy: boolean; version: string }>;
  listSessions(): Promise<Session[]>;
  createSession(options?: { model?: ModelRef; title?: string }): Promise<Session>;
  getSession(id: string): Promise<Session>;
  deleteSession(id: string): Promise<void>;
  /** The newest `limit` messages, oldest first. */
  messages(id: string, limit?: number): Promise<EngineMessage[]>;
  /** Starts a turn and returns at once; the reply arrives on the event stream. */
  promptAsync(id: string, text: string, model?: ModelRef): Promise<void>;
  /** Runs a whole turn and returns the reply's text. */
  prompt(
    id: string,
    text: string,
    options?: { model?: ModelRef; timeoutMs?: number },
  ): Promise<string>;
  abort(id: string): Promise<void>;
  providers(): Promise<EngineProviders>;
  /** `model` of the engine's configuration (`provider/model`), if it has one. */
  configuredModel(): Promise<ModelRef | null>;
  /**
   * One connection to the engine's event stream; ends when the engine closes it or `signal`
   * aborts. `onEvent` is called for everything received, heartbeats included.
   */
  events(signal: AbortSignal, onEvent?: () => void): Promise<AsyncIterable<EngineEvent>>;
}

export function basicAuthHeader(password: string): string {
  return `Basic ${Buffer.from(`opencode:${password}`).toString('base64')}`;
}

export function createEngineClient(options: EngineClientOptions): EngineClient {
  const { url, password, log, requestTimeoutMs } = options;
  const sdk: OpencodeClient = createOpencodeClient({
    baseUrl: url,
    ...(password ? { headers: { authorization: basicAuthHeader(password) } } : {}),
  });
  const bounded = (timeoutMs = requestTimeoutMs) => ({
    throwOnError: true as const,
    signal: AbortSignal.timeout(timeoutMs),
  });

  async function call<T>(
    what: string,
    run: () => Promise<{ data: T }>,
    notFound?: string,
  ): Promise<T> {
    try {
      return (await run()).data;
    } catch (err) {
      const mapped = toAppError(err, notFound);
      log.debug({ err, what, code: mapped.code }, 'engine call failed');
      throw mapped;
    }
  }

  return {
    url,
    health: () => call('health', () => sdk.global.health(bounded())),
    listSessions: () => call('session.list', () => sdk.session.list({ roots: true }, bounded())),
    createSession: (opts = {}) =>
      call('session.create', () =>
        sdk.session.create(
          {
            ...(opts.title ? { title: opts.title } : {}),
            ...(opts.model
              ? { model: { id: opts.model.model, providerID: opts.model.provider } }
              : {}),
          },
          bounded(),
        ),
      ),
    getSession: (id) => call('session.get', () => sdk.session.get({ sessionID: id }, bounded())),
    deleteSession: async (id) => {
      await call('session.delete', () => sdk.session.delete({ sessionID: id }, bounded()));
    },
    messages: (id, limit) =>
      call('session.messages', () =>
        sdk.session.messages(
          { sessionID: id, ...(limit !== undefined ? { limit } : {}) },
          bounded(),
        ),
      ),
    promptAsync: async (id, text, model) => {
      await call('session.promptAsync', () =>
        sdk.session.promptAsync(
          { sessionID: id, parts: [{ type: 'text', text }], ...modelParam(model) },
          bounded(),
        ),
      );
    },
    prompt: async (id, text, opts = {}) => {
      const reply = await call('session.prompt', () =>
        sdk.session.prompt(
          { sessionID: id, parts: [{ type: 'text', text }], ...modelParam(opts.model) },
          // A turn can take minutes (tool calls, model retries): only the caller's bound applies.
          opts.timeoutMs !== undefined ? bounded(opts.timeoutMs) : { throwOnError: true as const },
        ),
      );
      const failure = reply.info.role === 'assistant' ? reply.info.error : undefined;
      if (failure) throw new EngineUnavailableError(`Engine error: ${engineErrorMessage(failure)}`);
      return reply.parts
        .filter((p): p is Extract<Part, { type: 'text' }> => p.type === 'text' && !p.synthetic)
        .map((p) => p.text)
        .join('');
    },
    abort: async (id) => {
      await call('session.abort', () => sdk.session.abort({ sessionID: id }, bounded()));
    },
    providers: () =>
      call(
        'config.providers',
        () => sdk.config.providers(undefined, bounded()),
        'providers not found',
      ),
    configuredModel: async () => {
      const config = await call(
        'config.get',
        () => sdk.config.get(undefined, bounded()),
        'config not found',
      );
      return parseModelRef(config.model);
    },
    events: async (signal, onEvent) => {
      const { stream } = await sdk.event.subscribe(undefined, {
        signal,
        // The hub reconnects by itself with its own backoff: one attempt per call here.
        sseMaxRetryAttempts: 1,
        onSseEvent: onEvent ? () => onEvent() : undefined,
      });
      return stream as AsyncIterable<EngineEvent>;
    },
  };
}

function modelParam(model: ModelRef | undefined) {
  return model ? { model: { providerID: model.provider, modelID: model.model } } : {};
}

/** `provider/model` → ModelRef; model ids may contain further slashes. */
export function parseModelRef(value: string | undefined | null): ModelRef | null {
  if (!value) return null;
  const slash = value.indexOf('/');
  if (slash <= 0 || slash === value.length - 1) return null;
  return { provider: value.slice(0, slash), model: value.slice(slash + 1) };
}

/** Readable text of an engine error object `{name, data: {message}}`. */
export function engineErrorMessage(error: unknown): string {
  if (typeof error !== 'object' || error === null) return String(error ?? 'unknown error');
  const data = (error as { data?: { message?: unknown } }).data;
  if (typeof data?.message === 'string' && data.message) return data.message;
  const name = (error as { name?: unknown }).name;
  return typeof name === 'string' ? name : 'unknown error';
}
