import { createHash, randomBytes } from 'node:crypto';

export const scriptHashPattern = /^sha256:[0-9a-f]{64}$/;

/** The identity an approval binds to: `sha256:` + hex of the source's UTF-8 bytes. */
export function hashSource(source: string): string {
  return `sha256:${createHash('sha256').update(source, 'utf8').digest('hex')}`;
}

/** A version id: 40 lowercase hex characters (160 random bits, so collisions are not a concern). */
export function newCommitId(): string {
  return randomBytes(20).toString('hex');
}

export const commitPattern = /^[0-9a-f]{40}$/;
