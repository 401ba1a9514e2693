import type { FastifyPluginAsync } from 'fastify';
import type { Registry } from 'prom-client';
import type { Context } from '../../runtime/context.js';
import { ServiceUnavailableError } from '../../errors/request-errors.js';
import { VERSION } from '../../version.js';
import { storeUnavailableMessage } from '../plugins/store-availability.js';
import { createMetricsReader, type MetricsSources } from '../metrics.js';

export interface HealthOptions {
  ctx: Context;
  setupComplete(): Promise<boolean>;
  metrics: MetricsSources;
  /** Whether the AI engine answers (a Prometheus gauge; never a reason for 503). */
  engineStatus(): 'connected' | 'unavailable';
  /** How long /health, /ready and /metrics wait for Redis before calling it unavailable. */
  probeTimeoutMs?: number;
  /** How long /metrics keeps counts (the spec allows 10 s). */
  metricsCacheMs?: number;
}

/**
 * A probe must answer while Redis is down: ioredis queues commands while it reconnects, and a
 * load balancer needs a prompt 503, not a hung request.
 */
function bounded<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

function formatUptime(ms: number): string {
  const s = Math.floor(ms / 1000);
  const d = Math.floor(s / 86400);
  const h = Math.floor((s % 86400) / 3600);
  const m = Math.floor((s % 3600) / 60);
  return `${d > 0 ? `${d}d` : ''}${h}h${m}m${s % 60}s`;
}

/** Unauthenticated liveness, readiness, health and metrics, exactly as the spec words them. */
export const healthRoutes: FastifyPluginAsync<HealthOptions> = async (app, opts) => {
  const { ctx } = opts;
  const { lifecycle } = ctx;
  const readMetrics = createMetricsReader(opts.metrics, lifecycle.startedAt, opts.metricsCacheMs);
  const probeMs = opts.probeTimeoutMs ?? 1000;

  app.get('/healthz', async (_req, reply) => {
    const ok = lifecycle.phase !== 'stopping';
    return reply
      .code(ok ? 200 : 503)
      .type('text/plain; charset=utf-8')
      .send(ok ? 'OK' : 'Service Unavailable');
  });

  app.get('/health', async (_req, reply) => {
    if (lifecycle.phase === 'stopping') {
      return reply.code(503).send({
        status: 'unhealthy',
        reason: 'shutting_down',
        message: 'the service is shutting down',
      });
    }
    let setup: boolean;
    try {
      setup = await bounded(opts.setupComplete(), probeMs);
    } catch {
      return reply.code(503).send({
        status: 'unhealthy',
        reason: 'store_unavailable',
        message: 'Redis is not reachable',
      });
    }
    if (!setup) {
      return reply.code(503).send({
        status: 'unhealthy',
        reason: 'setup_required',
        message: 'no admin user exists yet; complete setup with POST /api/setup',
      });
    }
    return {
      status: 'healthy',
      uptime: formatUptime(Date.now() - lifecycle.startedAt),
      version: VERSION,
    };
  });

  // A check that could not run (the store is away) keeps its last known result instead of
  // reading as failed: setup done before an outage is still done.
  let adminSetupKnown = false;
  app.get('/ready', async (_req, reply) => {
    let scriptStore = false;
    try {
      scriptStore = (await bounded(ctx.redis.ping(), probeMs)) === 'PONG';
      adminSetupKnown = await bounded(opts.setupComplete(), probeMs);
    } catch {
      // Left as last known.
    }
    const checks = {
      admin_setup: adminSetupKnown,
      script_store: scriptStore,
      mcp_server: lifecycle.check('mcp_server'),
    };
    let reason: string | undefined;
    if (lifecycle.phase === 'starting') reason = 'starting';
    else if (lifecycle.phase === 'stopping') reason = 'shutting_down';
    // Without the store nothing else can be checked: it is the first failing check.
    else if (!scriptStore) reason = 'script_store';
    else reason = Object.entries(checks).find(([, ok]) => !ok)?.[0];
    const ready = reason === undefined;
    return reply.code(ready ? 200 : 503).send({ ready, checks, ...(reason ? { reason } : {}) });
  });

  // A scrape answers within the probe time during an outage: the last counts with their age in
  // the standard `Age` header, or 503 when there are none yet.
  app.get('/metrics', async (_req, reply) => {
    const reading = await readMetrics.within(probeMs);
    if (!reading) throw new ServiceUnavailableError(storeUnavailableMessage);
    return reply.header('age', String(Math.floor(reading.ageMs / 1000))).send(reading.snapshot);
  });

  // prom-client (about 10 MB) loads at the first scrape, not in every process at start.
  let registry: Promise<Registry> | undefined;
  const prometheus = () =>
    (registry ??= import('prom-client').then(({ Registry, collectDefaultMetrics, Gauge }) => {
      const reg = new Registry();
      collectDefaultMetrics({ register: reg, prefix: 'steward_' });
      const gauge = (
        name: string,
        help: string,
        pick: (m: Awaited<ReturnType<typeof readMetrics>>) => number,
      ) =>
        new Gauge({
          name,
          help,
          registers: [reg],
          async collect() {
            this.set(pick(await readMetrics()));
          },
        });
      gauge('steward_scripts_total', 'Scripts stored', (m) => m.scripts.total);
      gauge('steward_scripts_approved', 'Approved scripts', (m) => m.scripts.approved);
      gauge(
        'steward_executions_total',
        'Script executions, cluster-wide',
        (m) => m.executions.total,
      );
      gauge(
        'steward_executions_failed',
        'Failed script executions, cluster-wide',
        (m) => m.executions.failed,
      );
      const expired = opts.metrics.expiredRuns;
      if (expired) {
        new Gauge({
          name: 'steward_executions_expired',
          help: 'Script runs dropped unrun because their caller had stopped waiting, cluster-wide',
          registers: [reg],
          async collect() {
            this.set(await expired());
          },
        });
      }
      new Gauge({
        name: 'steward_engine_up',
        help: 'Whether the AI engine answers (1) or not (0)',
        registers: [reg],
        collect() {
          this.set(opts.engineStatus() === 'connected' ? 1 : 0);
        },
      });
      gauge(
        'steward_secrets_configured',
        'Secrets with a stored value',
        (m) => m.secrets.configured,
      );
      return reg;
    }));

  app.get('/metrics/prometheus', async (_req, reply) => {
    const reg = await prometheus();
    return reply.type(reg.contentType).send(await reg.metrics());
  });
};
