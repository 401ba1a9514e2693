import { keys } from '../store/keys.js';
import type { Redis } from '../store/redis.js';

export interface AdminRecord {
  username: string;
  passwordHash: string;
}

export interface AdminStore {
  exists(): Promise<boolean>;
  get(): Promise<AdminRecord | null>;
  /** Creates the one admin; false when one already exists (whoever raced us won). */
  create(record: AdminRecord): Promise<boolean>;
}

// Check and write in one script: two setup requests on two processes cannot both pass the check.
const createOnce = `
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], 'username', ARGV[1], 'password_hash', ARGV[2], 'role', 'admin', 'created_at', ARGV[3])
return 1
`;

/** The admin account: the hash at `keys.adminUser()` (the health check tests its existence). */
export function createAdminStore(redis: Redis): AdminStore {
  return {
    exists: async () => (await redis.exists(keys.adminUser())) === 1,
    async get() {
      const [username, passwordHash] = await redis.hmget(
        keys.adminUser(),
        'username',
        'password_hash',
      );
      if (!username || !passwordHash) return null;
      return { username, passwordHash };
    },
    async create(record) {
      const created = await redis.eval(
        createOnce,
        1,
        keys.adminUser(),
        record.username,
        record.passwordHash,
        new Date().toISOString(),
      );
      return created === 1;
    },
  };
}
