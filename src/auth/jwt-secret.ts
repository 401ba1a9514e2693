import { randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import path from 'node:path';

export const JWT_SECRET_FILE = 'jwt_secret';

export interface JwtSecretSource {
  /** `admin.jwt.secret` (env ADMIN_JWT_SECRET); wins over the file when set. */
  configured?: string | undefined;
  /** `config.paths.data`. */
  dataDir: string;
}

/**
 * The token signing secret: the configured one, else `<data>/jwt_secret`, created on first start
 * with 256 random bits (hex) and mode 0600.
 *
 * Every API process must sign and verify with the same secret. Processes sharing one data
 * directory share the file (creation is race-free, see below); deployments across several hosts
 * must set ADMIN_JWT_SECRET instead, or each host would mint tokens the others refuse.
 */
export async function loadJwtSecret(source: JwtSecretSource): Promise<string> {
  if (source.configured) return source.configured;
  const file = path.join(source.dataDir, JWT_SECRET_FILE);
  const existing = await readSecret(file);
  if (existing !== null) return existing;

  await fs.mkdir(source.dataDir, { recursive: true, mode: 0o700 });
  // Write a private temp file, then link it into place: link fails when the name exists, so two
  // processes starting together agree on whichever secret landed first, and nobody ever reads a
  // half-written file.
  const temp = `${file}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
  await fs.writeFile(temp, `${randomBytes(32).toString('hex')}\n`, { mode: 0o600, flag: 'wx' });
  try {
    await fs.link(temp, file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  } finally {
    await fs.rm(temp, { force: true });
  }
  const created = await readSecret(file);
  if (created === null) throw new Error(`could not create ${file}`);
  return created;
}

async function readSecret(file: string): Promise<string | null> {
  let text: string;
  try {
    text = await fs.readFile(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
  const secret = text.trim();
  if (secret.length < 32) {
    throw new Error(
      `${file} holds fewer than 32 characters; delete it to generate a new secret or set ADMIN_JWT_SECRET`,
    );
  }
  return secret;
}
