import { readdirSync } from 'node:fs';

/**
 * Live threads of this process (main, libuv pool, worker threads). Linux exposes them as
 * /proc/self/task; elsewhere we fall back to the main thread alone.
 */
export function threadCount(): number {
  try {
    return readdirSync('/proc/self/task').length;
  } catch {
    return 1;
  }
}
