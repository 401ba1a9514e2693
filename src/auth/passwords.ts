import { randomBytes } from 'node:crypto';
import { hash, verify, type Algorithm } from '@node-rs/argon2';

// `Algorithm` is an ambient const enum, which isolatedModules cannot read; 2 is Argon2id.
const ARGON2ID = 2 as Algorithm;

/** argon2id with the library's defaults (19 MiB, 2 passes): about 30 ms per hash. */
export function hashPassword(password: string): Promise<string> {
  return hash(password, { algorithm: ARGON2ID });
}

export interface PasswordChecker {
  /**
   * Verifies `password` against `storedHash`, or against a dummy hash when there is no account,
   * so that an unknown username costs exactly as much time as a wrong password.
   */
  check(storedHash: string | undefined, password: string): Promise<boolean>;
}

export function createPasswordChecker(): PasswordChecker {
  // A real hash of a random password nobody knows, computed once, so the dummy verification
  // does the same argon2 work as a real one.
  const dummy = hashPassword(randomBytes(32).toString('base64'));
  dummy.catch(() => {});
  return {
    async check(storedHash, password) {
      const target = storedHash ?? (await dummy);
      let ok: boolean;
      try {
        ok = await verify(target, password);
      } catch {
        // A corrupt stored hash must fail closed, not answer 500 with details.
        ok = false;
      }
      return ok && storedHash !== undefined;
    },
  };
}
