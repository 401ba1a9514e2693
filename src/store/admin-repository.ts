import { keys } from './keys.js';
import { callLua } from './lua-commands.js';
import type { Redis } from './redis.js';

export interface AdminRecord {
  username: string;
  passwordHash: string;
}

export interface AdminRepository {
  exists(): Promise<boolean>;
  get(): Promise<AdminRecord | null>;
  /** Creates the one admin; false when one already exists (whoever raced us won). */
  create(record: AdminRecord): Promise<boolean>;
}

/** The admin account: the hash at `keys.adminUser()` (the health check tests its existence). */
export function createAdminRepository(redis: Redis): AdminRepository {
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
      // Check and write in one script (lua/admin-create-1.lua): two setups cannot both pass.
      const created = await callLua(
        redis,
        'adminCreate',
        keys.adminUser(),
        record.username,
        record.passwordHash,
        new Date().toISOString(),
      );
      return created === 1;
    },
  };
}
