import type { ChainableCommander } from 'ioredis';
import type { KeyRecord, StoredBytes } from './backup-records.js';
import type { Redis } from './redis.js';

/** Keys read per pipeline: one round trip for their types and TTLs, one for their values. */
const BATCH = 500;
/** Elements per write command when a value is written back. */
const CHUNK = 1000;

/** Text when the bytes are UTF-8 (Steward writes only text), else base64: nothing is lost. */
export function encodeBytes(buf: Buffer): StoredBytes {
  const text = buf.toString('utf8');
  return Buffer.byteLength(text) === buf.length && Buffer.from(text, 'utf8').equals(buf)
    ? text
    : { base64: buf.toString('base64') };
}

export function decodeBytes(value: StoredBytes): Buffer {
  return typeof value === 'string'
    ? Buffer.from(value, 'utf8')
    : Buffer.from(value.base64, 'base64');
}

const pairs = <T>(items: T[]): Array<[T, T]> => {
  const out: Array<[T, T]> = [];
  for (let i = 0; i + 1 < items.length; i += 2) out.push([items[i] as T, items[i + 1] as T]);
  return out;
};

/**
 * Every value of `fullKeys` with its expiry, in batches. A key gone since it was listed is
 * skipped; one whose type changed meanwhile too (the snapshot's EXEC then fails and it is taken
 * again).
 */
export async function readKeys(
  conn: Redis,
  fullKeys: readonly string[],
  relative: (full: string) => string,
): Promise<KeyRecord[]> {
  const records: KeyRecord[] = [];
  for (let at = 0; at < fullKeys.length; at += BATCH) {
    const batch = fullKeys.slice(at, at + BATCH);
    const head = conn.pipeline().time();
    for (const key of batch) head.type(key).pttl(key);
    const meta = (await head.exec()) ?? [];
    const [seconds, micros] = (meta[0]?.[1] ?? ['0', '0']) as [string, string];
    const now = Number(seconds) * 1000 + Math.floor(Number(micros) / 1000);
    const reads = conn.pipeline();
    const wanted: Array<{ key: string; type: string; expire: number | null }> = [];
    batch.forEach((key, i) => {
      const type = meta[1 + i * 2]?.[1] as string;
      const ttl = Number(meta[2 + i * 2]?.[1]);
      if (type === 'none' || ttl === -2) return;
      const expire = ttl >= 0 ? now + Math.max(ttl, 1) : null;
      if (type === 'string') reads.callBuffer('GET', key);
      else if (type === 'hash') reads.callBuffer('HGETALL', key);
      else if (type === 'list') reads.callBuffer('LRANGE', key, '0', '-1');
      else if (type === 'set') reads.callBuffer('SMEMBERS', key);
      else if (type === 'zset') reads.callBuffer('ZRANGE', key, '0', '-1', 'WITHSCORES');
      else throw new Error(`key ${relative(key)} is a ${type}, which a backup cannot hold`);
      wanted.push({ key, type, expire });
    });
    const values = (await reads.exec()) ?? [];
    wanted.forEach(({ key, type, expire }, i) => {
      const [err, raw] = values[i] ?? [null, null];
      if (err || raw === null) return;
      const common = { key: relative(key), expire_at_ms: expire };
      if (type === 'string') {
        records.push({ ...common, type, value: encodeBytes(raw as Buffer) });
        return;
      }
      const items = (raw as Buffer[]).map(encodeBytes);
      if (type === 'hash') records.push({ ...common, type, value: pairs(items) });
      else if (type === 'list') records.push({ ...common, type, value: items });
      else if (type === 'set') records.push({ ...common, type, value: items });
      else {
        records.push({
          ...common,
          type: 'zset',
          value: pairs(items).map(([member, score]) => [member, String(score)]),
        });
      }
    });
  }
  return records;
}

/** Queues the writes of one record (deleted first, so no write meets another type). */
export function writeKey(tx: ChainableCommander, record: KeyRecord): void {
  const { key } = record;
  tx.del(key);
  const chunks = <T>(items: T[], write: (chunk: T[]) => void) => {
    for (let i = 0; i < items.length; i += CHUNK) write(items.slice(i, i + CHUNK));
  };
  switch (record.type) {
    case 'string':
      tx.set(key, decodeBytes(record.value));
      break;
    case 'hash':
      chunks(record.value, (c) =>
        tx.hset(key, ...c.flatMap(([f, v]) => [decodeBytes(f), decodeBytes(v)])),
      );
      break;
    case 'list':
      chunks(record.value, (c) => tx.rpush(key, ...c.map(decodeBytes)));
      break;
    case 'set':
      chunks(record.value, (c) => tx.sadd(key, ...c.map(decodeBytes)));
      break;
    case 'zset':
      chunks(record.value, (c) => tx.zadd(key, ...c.flatMap(([m, s]) => [s, decodeBytes(m)])));
      break;
  }
  if (record.expire_at_ms !== null) tx.pexpireat(key, record.expire_at_ms);
}
