/**
 * Every Redis key name Steward uses, relative to the deployment prefix (ioredis adds it).
 * One module owns them so that a rename or a scan never misses one.
 */
export const keys = {
  // The store itself
  /** The schema version of the data under this prefix (absent: data of release 1). */
  schemaVersion: () => 'meta:schema_version',
  /** The Steward release that last migrated or first wrote the data (for messages only). */
  schemaWrittenBy: () => 'meta:written_by',
  migrationLock: () => 'lock:migrations',
  /** One-way check value of the approval key: a start with another key says so. */
  approvalKeyCheck: () => 'approvals:key_check',

  // Audit log (src/runtime/audit-log.ts)
  /** Stream of entries, oldest first; each holds its JSON (`e`) and its chain hash (`h`). */
  auditLog: () => 'audit:log',
  /** Hash of the newest entry: what the next entry's `prev` must be. */
  auditHead: () => 'audit:head',
  /** Hash of the newest pruned entry: the `prev` of the oldest kept one. */
  auditAnchor: () => 'audit:anchor',

  // Setup and authentication
  adminUser: () => 'admin:user',
  /** One login session: the refresh-token family (current and previous token id). */
  authSession: (sid: string) => `auth:session:${sid}`,
  /** rate-limiter-flexible's keyPrefix; it appends `:<client>` itself. */
  rateLimit: (scope: string) => `ratelimit:${scope}`,
  /** One client's token bucket (hash of tokens and the time they were counted). */
  tokenBucket: (scope: string, client: string) => `ratelimit:${scope}:bucket:${client}`,

  // Scripts
  scriptIndex: () => 'scripts:index',
  script: (name: string) => `script:${name}`,
  scriptVersions: (name: string) => `script:${name}:versions`,
  scriptVersion: (name: string, commit: string) => `script:${name}:version:${commit}`,
  scriptHistory: (name: string) => `script:${name}:history`,
  scriptLock: (name: string) => `lock:script:${name}`,
  /** Hash: script name → hash of the text the tool server last wrote to its file (provenance). */
  scriptToolWrites: () => 'scripts:tool-written',

  /** Answers for the callers of one queue client (one process), by that client's id. */
  runReplies: (client: string) => `run-replies:${client}`,

  // Execution counters shared by every process (/metrics)
  executionStats: () => 'stats:executions',

  // Secrets
  secretIndex: () => 'secrets:index',
  secret: (name: string) => `secret:${name}`,
  redactionSet: () => 'secrets:redaction',
  redactionVersion: () => 'secrets:redaction:version',
  /** One-way check value of the secrets key, so a wrong or missing key stops start-up. */
  secretsKeyCheck: () => 'secrets:key_check',
  /** Pub/sub channel, not a key: ioredis does not prefix channels, so the prefix is added here. */
  redactionChannel: (prefix: string) => `${prefix}secrets:changed`,

  // Schedules
  scheduleIndex: () => 'schedules:index',
  schedule: (id: string) => `schedule:${id}`,
  scheduleRuns: (id: string) => `schedule:${id}:runs`,
  scheduleFired: (id: string, fireTime: number) => `schedule:${id}:fired:${fireTime}`,
  /** Claim of a manual `run` (keyed by its job id, since it has no fire time). */
  scheduleManualClaim: (id: string, jobId: string) => `schedule:${id}:manual:${jobId}`,
  /** ZSET of runs in flight, scored by lease deadline: expired leases are interrupted runs. */
  scheduleRunning: () => 'schedules:running',
  scheduleLock: (id: string) => `lock:schedule:${id}`,
  schedulerLock: () => 'lock:schedulers',
  /** Hash: schedule id → the tick group (hash of cron pattern + zone) it fires with. */
  scheduleGroupOf: () => 'schedules:group-of',
  /** Set of the enabled schedule ids sharing one (cron pattern, zone): one tick fires them all. */
  scheduleGroup: (group: string) => `schedules:by-pattern:${group}`,
  /** Hash: group → its {group, pattern, tz} (the tick job's data), kept while it has members. */
  scheduleGroupSpecs: () => 'schedules:group-specs',
  scheduleGroupLock: (group: string) => `lock:schedule-group:${group}`,
  /** Claim of one tick (a group's fire time): the worker that wins it fans the firing out. */
  scheduleTick: (group: string, fireTime: number) => `schedules:tick:${group}:${fireTime}`,
  /** Set of the tick's schedule ids not yet taken by a worker (SPOP in batches). */
  scheduleTickPending: (group: string, fireTime: number) =>
    `schedules:tick:${group}:${fireTime}:pending`,
  /**
   * ZSET of claimed ticks whose pending set may still hold ids (member: openTickMember), scored
   * by when they were claimed or last looked at: one whose claimer died is drained by a sweep.
   */
  scheduleTicksOpen: () => 'schedules:ticks:open',
  /**
   * ZSET of runs whose delivery has no outcome yet (member: run id), scored by when it was
   * recorded or last looked at; their payloads are in scheduleDeliveryPayloads.
   */
  scheduleDeliveriesPending: () => 'schedules:deliveries:pending',
  /** Hash: run id → its delivery job's payload, while its delivery has no outcome. */
  scheduleDeliveryPayloads: () => 'schedules:deliveries:payloads',
  /**
   * Hash: "0" → sending | sent, for one webhook delivery (run, channel): its POST is claimed
   * before it is sent, as chat parts are (chatDelivery), so a crash mid-POST is never resent.
   */
  scheduleWebhookSend: (deliveryId: string) => `schedules:webhook-send:${deliveryId}`,
  /** Pub/sub channel, not a key (see redactionChannel): "a tick has runs to take". */
  scheduleTickChannel: (prefix: string) => `${prefix}schedules:ticks`,

  // Chat gateway
  /** The gateway's leader lease (one poller per bot token, cluster-wide). */
  chatLease: () => 'chat:leader',
  /** Hash: pairing code → the pending request (identity, chat, expiry). */
  chatPairings: () => 'chat:pairings',
  /** Set while a stranger was answered lately (the bot answers a stranger once a minute). */
  chatStrangerAnswered: (provider: string, userId: string) =>
    `chat:stranger-answered:${provider}:${userId}`,
  /** Hash: "provider:user id" → the approved identity (its chat id, name, when). */
  chatIdentities: () => 'chat:identities',
  /** Hash: "provider:chat id" → its engine session (session scope `per_chat`). */
  chatSessions: () => 'chat:sessions',
  /** One approval request sent to the administrator's chat (JSON, kept past its expiry). */
  chatApproval: (id: string) => `chat:approval:${id}`,
  /** Hash: script name → its open approval request. */
  chatApprovalsOpen: () => 'chat:approvals:open',
  /** Claim that one (script, hash) was announced, so concurrent processes announce it once. */
  chatApprovalAnnounced: (script: string, hash: string) =>
    `chat:approval-announced:${script}:${hash}`,
  /** Hash: "provider:chat:prompt message" → the request whose rejection reason it asks for. */
  chatApprovalReasons: () => 'chat:approval-reasons',
  /** List of webhook updates an API process received, for the gateway's leader to handle. */
  chatUpdates: (provider: string) => `chat:updates:${provider}`,
  /** Claim of one update id (Telegram: "<bot id>:<update id>"), so it is handled once. */
  chatUpdateSeen: (provider: string, updateId: string) =>
    `chat:update-seen:${provider}:${updateId}`,
  /** Hash: message part → sending | sent, for one (run or call, target) delivery. */
  chatDelivery: (deliveryId: string) => `chat:delivery:${deliveryId}`,

  // Engine
  activeSession: () => 'engine:active_session',
  defaultModel: () => 'engine:default_model',
} as const;
