import { keys } from './keys.js';

/**
 * What a backup does with each kind of key (DESIGN "Backup, restore and upgrades"):
 * - `kept`: Steward's data, copied as it is;
 * - `audit`: the audit chain, read at the snapshot's point and copied entry by entry;
 * - `meta`: written by the restore itself (the schema version from the file's header, the
 *   fingerprint of the restoring deployment's approval key);
 * - `left`: not data: login sessions, rate-limit counters, locks, leases, claims of work in
 *   flight and queues of it (BullMQ's state is under the prefix too and is left as well);
 * - `channel`: a pub/sub channel name, not a key.
 * A `Record` over every key of `keys.ts`: a key added there without a decision here does not
 * compile.
 */
export type KeyDisposition = 'kept' | 'audit' | 'meta' | 'left' | 'channel';

export const keyDispositions: Record<keyof typeof keys, KeyDisposition> = {
  schemaVersion: 'meta',
  schemaWrittenBy: 'meta',
  migrationLock: 'left',
  approvalKeyCheck: 'meta',
  auditLog: 'audit',
  auditHead: 'audit',
  auditAnchor: 'audit',
  adminUser: 'kept',
  authSession: 'left',
  rateLimit: 'left',
  tokenBucket: 'left',
  scriptIndex: 'kept',
  script: 'kept',
  scriptVersions: 'kept',
  scriptVersion: 'kept',
  scriptHistory: 'kept',
  scriptLock: 'left',
  scriptToolWrites: 'kept',
  runReplies: 'left',
  executionStats: 'kept',
  secretIndex: 'kept',
  secret: 'kept',
  redactionSet: 'kept',
  redactionVersion: 'kept',
  secretsKeyCheck: 'kept',
  redactionChannel: 'channel',
  scheduleIndex: 'kept',
  schedule: 'kept',
  scheduleRuns: 'kept',
  scheduleFired: 'left',
  scheduleManualClaim: 'left',
  // Runs in flight at the snapshot: restored, their leases have expired, so the first worker
  // ends them as interrupted instead of leaving them `running` for ever.
  scheduleRunning: 'kept',
  scheduleLock: 'left',
  schedulerLock: 'left',
  // Consistent with the schedules they group; a worker's reconcile re-creates the BullMQ tick
  // schedulers from them and the schedules.
  scheduleGroupOf: 'kept',
  scheduleGroup: 'kept',
  scheduleGroupSpecs: 'kept',
  scheduleGroupLock: 'left',
  scheduleTick: 'left',
  scheduleTickPending: 'left',
  scheduleTicksOpen: 'left',
  // Queued work, like the BullMQ jobs they stand for (which a backup leaves too).
  scheduleDeliveriesPending: 'left',
  scheduleDeliveryPayloads: 'left',
  scheduleWebhookSend: 'left',
  scheduleTickChannel: 'channel',
  chatLease: 'left',
  chatPairings: 'kept',
  chatStrangerAnswered: 'left',
  chatIdentities: 'kept',
  chatSessions: 'kept',
  chatApproval: 'kept',
  chatApprovalsOpen: 'kept',
  chatApprovalAnnounced: 'left',
  chatApprovalReasons: 'kept',
  chatUpdates: 'left',
  chatUpdateSeen: 'left',
  chatDelivery: 'left',
  activeSession: 'kept',
  defaultModel: 'kept',
};

/** BullMQ's keys share the deployment prefix (`redis.ts` `bullPrefix`). */
const BULLMQ = /^bull:/;

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * Each key function as an anchored pattern, its arguments wildcards. A broader pattern may match
 * a more specific key (`schedule:<id>` matches `schedule:<id>:fired:<t>`): `dispositionOf` lets
 * `left` win, and no kept key can match a left pattern (names and ids hold no `:`).
 */
const patterns = (Object.keys(keyDispositions) as Array<keyof typeof keys>)
  .filter((name) => keyDispositions[name] !== 'channel')
  .map((name) => {
    const fn = keys[name] as (...args: string[]) => string;
    const source = escape(fn('\u0000', '\u0000', '\u0000'))
      .split('\u0000')
      .join('.+');
    return { disposition: keyDispositions[name], regex: new RegExp(`^${source}$`) };
  });

/** What a key (relative to the prefix) is; null for a key of no kind Steward knows. */
export function dispositionOf(key: string): KeyDisposition | null {
  if (BULLMQ.test(key)) return 'left';
  let found: KeyDisposition | null = null;
  for (const p of patterns) {
    if (!p.regex.test(key)) continue;
    // Two patterns may match the same text; whatever is left anywhere stays left.
    if (p.disposition === 'left') return 'left';
    found ??= p.disposition;
  }
  return found;
}

/** The keys without arguments that a backup keeps: watched even when absent (one may appear). */
export const keptSingletons: string[] = (Object.keys(keyDispositions) as Array<keyof typeof keys>)
  .filter((name) => keyDispositions[name] === 'kept' && keys[name].length === 0)
  .map((name) => (keys[name] as () => string)());

/** A SCAN MATCH pattern for every key under `prefix`, glob characters of the prefix escaped. */
export function prefixPattern(prefix: string): string {
  return `${prefix.replace(/[*?[\]\\]/g, '\\$&')}*`;
}
