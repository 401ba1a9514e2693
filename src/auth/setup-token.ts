import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { cidrContains, parseCidr, parseIp, unmapIpv4 } from '../net/ip-address.js';
import { isLoopbackHost, loopbackRanges } from '../net/loopback.js';

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

/** Headers a proxy or relay adds: a request carrying any of them was passed on for someone. */
const forwardingHeaders = ['x-forwarded-for', 'forwarded', 'x-real-ip', 'x-forwarded-host', 'via'];

/** Whether a Host header value or an Origin's host names this machine (with or without port). */
function namesLoopback(authority: string): boolean {
  try {
    return isLoopbackHost(new URL(`http://${authority}`).hostname.toLowerCase());
  } catch {
    return false;
  }
}

function originIsLoopback(origin: string): boolean {
  try {
    const url = new URL(origin);
    return (url.protocol === 'http:' || url.protocol === 'https:') && namesLoopback(url.host);
  } catch {
    return false;
  }
}

/**
 * Whether a request came from this machine itself, for this machine: a loopback socket alone
 * proves neither. A page on a name the attacker rebinds to 127.0.0.1 reaches a loopback socket
 * with its own Host and Origin; a relay here (socat, nginx `proxy_pass`) opens one for a client
 * elsewhere, who called Steward by a public name. So the socket must be loopback, `Host` must name
 * a loopback address, any `Origin` must be loopback, and no proxy header may be present.
 */
export function isLocalRequest(
  remoteAddress: string | undefined,
  headers: Record<string, unknown>,
): boolean {
  if (forwardingHeaders.some((name) => headers[name] !== undefined)) return false;
  const host = headers['host'];
  if (typeof host !== 'string' || !namesLoopback(host)) return false;
  const origin = headers['origin'];
  if (origin !== undefined && (typeof origin !== 'string' || !originIsLoopback(origin))) {
    return false;
  }
  const ip = remoteAddress ? parseIp(remoteAddress) : undefined;
  if (!ip || !loopbackV4 || !loopbackV6) return false;
  const v4 = ip.family === 4 ? ip : unmapIpv4(ip);
  return v4 ? cidrContains(loopbackV4, v4) : cidrContains(loopbackV6, ip);
}
