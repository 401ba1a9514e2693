import { listenStandby, type StandbyReason, type StandbyServer } from '../api/standby-server.js';
import { loadConfig } from '../config/load.js';

export interface EarlyStandby {
  server: StandbyServer;
  /** What the standby says while it answers; the role moves it on as start-up proceeds. */
  state: { reason: StandbyReason };
  /** Hands SIGTERM/SIGINT/SIGHUP over to the role's own shutdown. */
  release(): void;
}

/**
 * The port of an HTTP role answers within moments of the process starting: `/healthz` 200,
 * `/ready` and everything else 503 "starting", while the rest of Steward loads (a second of
 * module loading on a small machine) and Redis is reached. Only the config and `node:http` are
 * loaded first. Null when the config does not load: the role then reports it as before.
 */
export async function listenEarly(options: {
  configFile?: string;
  env: Record<string, string | undefined>;
}): Promise<EarlyStandby | null> {
  let host: string;
  let port: number;
  try {
    ({ host, port } = loadConfig({
      ...(options.configFile ? { file: options.configFile } : {}),
      env: options.env,
    }).server);
  } catch {
    return null;
  }
  const state: EarlyStandby['state'] = { reason: 'starting' };
  const server = await listenStandby(host, port, () => state.reason);
  // Until the role installs its shutdown, a signal ends the process cleanly (exit 0).
  const onSignal = () => void server.close().finally(() => process.exit(0));
  process.once('SIGTERM', onSignal);
  process.once('SIGINT', onSignal);
  process.once('SIGHUP', onSignal);
  return {
    server,
    state,
    release() {
      process.off('SIGTERM', onSignal);
      process.off('SIGINT', onSignal);
      process.off('SIGHUP', onSignal);
    },
  };
}
