/**
 * Every Redis key name Steward uses, relative to the deployment prefix (ioredis adds it).
 * One module owns them so that a rename or a scan never misses one.
 */
export const keys = {
  // Setup and authentication
  adminUser: () => 'admin:user',
  refreshToken: (jti: string) => `auth:refresh:${jti}`,
  revokedToken: (jti: string) => `auth:revoked:${jti}`,
  rateLimit: (scope: string) => `ratelimit:${scope}`,

  // Scripts
  scriptIndex: () => 'scripts:index',
  script: (name: string) => `script:${name}`,
  scriptVersions: (name: string) => `script:${name}:versions`,
  scriptVersion: (name: string, commit: string) => `script:${name}:version:${commit}`,
  scriptHistory: (name: string) => `script:${name}:history`,
  scriptLock: (name: string) => `lock:script:${name}`,

  // Execution counters shared by every process (/metrics)
  executionStats: () => 'stats:executions',

  // Secrets
  secretIndex: () => 'secrets:index',
  secret: (name: string) => `secret:${name}`,
  redactionSet: () => 'secrets:redaction',
  redactionVersion: () => 'secrets:redaction:version',
  /** Pub/sub channel, not a key: ioredis does not prefix channels, so the prefix is added here. */
  redactionChannel: (prefix: string) => `${prefix}secrets:changed`,

  // Schedules
  scheduleIndex: () => 'schedules:index',
  schedule: (id: string) => `schedule:${id}`,
  scheduleRuns: (id: string) => `schedule:${id}:runs`,
  scheduleFired: (id: string, fireTime: number) => `schedule:${id}:fired:${fireTime}`,
  schedulerLock: () => 'lock:schedulers',

  // Engine
  activeSession: () => 'engine:active_session',
  defaultModel: () => 'engine:default_model',
} as const;
