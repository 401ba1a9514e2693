import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { cidrContains, parseCidr, parseIp, unmapIpv4 } from '../net/ip-address.js';
import { loopbackRanges } from '../net/loopback.js';

export const SETUP_TOKEN_FILE = 'setup_token';
export const SETUP_TOKEN_HEADER = 'x-setup-token';

/**
 * The one-time token that first-run setup needs from any address but loopback (DESIGN "first-run
 * setup from the network"): Steward listens on 0.0.0.0, and without it the first stranger to
 * reach `POST /api/setup` would become the administrator. Kept in `<data>/setup_token` (0600)
 * so every API process of the deployment accepts the same token; gone once setup completes.
 */
export interface SetupToken {
  readonly file: string;
  /** The token, created on first call (an existing file is kept, so restarts print the same). */
  ensure(): Promise<string>;
  /** Constant-time comparison with the stored token; false when there is none. */
  matches(given: string | undefined): Promise<boolean>;
  discard(): Promise<void>;
}

const digest = (text: string) => createHash('sha256').update(text).digest();

export function createSetupToken(dataDir: string): SetupToken {
  const file = path.join(dataDir, SETUP_TOKEN_FILE);
  const read = async () => (await readFile(file, 'utf8').catch(() => '')).trim();
  return {
    file,
    async ensure() {
      const existing = await read();
      if (existing) return existing;
      await mkdir(dataDir, { recursive: true, mode: 0o700 });
      const token = randomBytes(24).toString('base64url');
      try {
        await writeFile(file, `${token}\n`, { mode: 0o600, flag: 'wx' });
        return token;
      } catch (err) {
        // Another process of the deployment wrote it first: use theirs.
        if ((err as NodeJS.ErrnoException).code === 'EEXIST') return read();
        throw err;
      }
    },
    async matches(given) {
      const stored = await read();
      if (!stored || !given) return false;
      return timingSafeEqual(digest(given.trim()), digest(stored));
    },
    async discard() {
      await rm(file, { force: true });
    },
  };
}

const loopbackV4 = parseCidr(loopbackRanges.ipv4);
const loopbackV6 = parseCidr(loopbackRanges.ipv6);

/**
 * Whether a request came from this machine itself. A request that passed through a proxy is not
 * local, even when the proxy runs here: it carries the proxy's forwarding headers.
 */
export function isLocalRequest(
  remoteAddress: string | undefined,
  headers: Record<string, unknown>,
): boolean {
  if (headers['x-forwarded-for'] !== undefined || headers['forwarded'] !== undefined) return false;
  const ip = remoteAddress ? parseIp(remoteAddress) : undefined;
  if (!ip || !loopbackV4 || !loopbackV6) return false;
  const v4 = ip.family === 4 ? ip : unmapIpv4(ip);
  return v4 ? cidrContains(loopbackV4, v4) : cidrContains(loopbackV6, ip);
}
