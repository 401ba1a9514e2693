import type { LoadedConfig } from '../config/load.js';
import { headline, type Logger } from '../log/logger.js';
import { loopbackAddress } from '../net/loopback.js';
import { freePort } from '../store/embedded-redis.js';
import type { EnginePreferencesRepository } from '../store/engine-preferences-repository.js';
import { createEngineClient, type EngineClient } from './client.js';
import { createEventHub, type EventHub } from './event-hub.js';
import { findOpencode } from './find-opencode.js';
import { createModelsService, type ModelsService } from './models-service.js';
import { stewardMcpEnv } from './opencode-config.js';
import { createSessionsService, type SessionsService } from './sessions-service.js';
import { createEngineSupervisor, type EngineSupervisor } from './supervisor.js';

/** OpenCode's own default address, used when neither `engine.url` nor `engine.command` is set. */
export const DEFAULT_ENGINE_URL = `http://${loopbackAddress}:4096`;

export interface EngineModuleOptions {
  config: LoadedConfig;
  log: Logger;
  /** Active session and default model, shared by every process. */
  preferences: EnginePreferencesRepository;
  /** The Redis URL actually in use (it may be an embedded server's), handed to `steward mcp`. */
  redisUrl: string;
  /** Steward's environment; only an allow-list reaches a supervised engine. */
  baseEnv?: Record<string, string | undefined>;
  /** Supervise an engine (when `engine.command` is set and `engine.url` is not); `steward api` replicas pass false. */
  supervise?: boolean;
}

export interface EngineModule {
  /** Whether an engine was configured (`engine.url`, `engine.command`) or is supervised here. */
  configured: boolean;
  client: EngineClient;
  hub: EventHub;
  sessions: SessionsService;
  models: ModelsService;
  /** Null when the engine is external (`engine.url`) or not supervised by this process. */
  supervisor: EngineSupervisor | null;
  /** Starts the supervised engine (if any) and the shared event stream. */
  start(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * Everything of the engine one process needs, built once. With a supervised engine the port is
 * chosen here, so the client's address is known before the engine runs and survives restarts.
 */
export async function createEngineModule(options: EngineModuleOptions): Promise<EngineModule> {
  const { config, log, preferences } = options;
  const engine = config.engine;
  const supervise = options.supervise ?? true;
  let command = engine.command;
  if (supervise && !engine.url && !command && engine.autostart) {
    const found = findOpencode(options.baseEnv?.PATH ?? '');
    if (found) command = [found];
    else
      log.warn(headline, 'no AI engine: set engine.url or engine.command, or install opencode-ai');
  }
  const supervised = supervise && !engine.url && (command?.length ?? 0) > 0;
  if (supervised && !engine.command) announceModel(config, command?.[0] ?? '', log);

  let supervisor: EngineSupervisor | null = null;
  let url = engine.url ?? DEFAULT_ENGINE_URL;
  let password = engine.password;
  if (supervised) {
    const port = engine.port ?? (await freePort());
    supervisor = createEngineSupervisor({
      config: { ...config, engine: { ...engine, command, port } },
      log: log.child({ component: 'engine' }),
      tools: { transport: 'stdio', env: stewardMcpEnv(config, options.redisUrl) },
      ...(options.baseEnv ? { baseEnv: options.baseEnv } : {}),
    });
    url = `http://${loopbackAddress}:${port}`;
    password = supervisor.password;
  }

  const client = createEngineClient({
    url,
    ...(password ? { password } : {}),
    log,
    requestTimeoutMs: engine.request_timeout,
  });
  const hub = createEventHub({ client, log });

  return {
    configured: Boolean(engine.url) || (engine.command?.length ?? 0) > 0 || supervised,
    client,
    hub,
    sessions: createSessionsService({ client, preferences, log }),
    models: createModelsService({ client, preferences }),
    supervisor,
    async start() {
      if (supervisor) {
        try {
          await supervisor.start();
        } catch (err) {
          // The supervisor keeps retrying; meanwhile engine routes answer 503.
          log.error({ err }, 'AI engine did not start; retrying in the background');
        }
      }
      hub.start();
    },
    async stop() {
      await hub.stop();
      await supervisor?.stop();
    },
  };
}

/** One line saying which model the engine answers with, or how to give it one. */
function announceModel(config: LoadedConfig, bin: string, log: Logger): void {
  const model = config.engine.config.model;
  const providers = Object.keys((config.engine.config.provider ?? {}) as Record<string, unknown>);
  if (typeof model === 'string') {
    log.info(
      { ...headline, opencode: bin, model, providers },
      `AI engine: OpenCode with model ${model}`,
    );
    return;
  }
  log.warn(
    { ...headline, opencode: bin, providers },
    'AI engine: OpenCode, but no model is configured; set engine.config.model (and engine.config.provider with its API key) in steward.yaml, as the README\'s "AI engine" section shows',
  );
}
