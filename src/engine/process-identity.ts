import { readFileSync } from 'node:fs';

/**
 * A process as the kernel knows it: its id and its start time (clock ticks since boot, field 22
 * of `/proc/<pid>/stat`). Ids are reused; the pair is not, so a pid file holding both can never
 * make Steward signal a stranger that happens to carry an old id.
 */
export interface ProcessIdentity {
  pid: number;
  start: string;
}

interface ProcStat {
  start: string;
  /** Process group id (field 5). */
  pgrp: number;
  /** `Z` for a zombie: it has exited and only waits for its parent to read its status. */
  state: string;
}

function readStat(pid: number): ProcStat | null {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return null;
  }
  // The command name (field 2) may hold spaces and parentheses: fields are counted after its `)`.
  const rest = text.slice(text.lastIndexOf(')') + 2).split(' ');
  const [state, , pgrp] = rest;
  const start = rest[19];
  if (state === undefined || pgrp === undefined || start === undefined) return null;
  return { state, pgrp: Number(pgrp), start };
}

/** The identity of a live process, or null when it is gone (or this is not Linux). */
export function identify(pid: number): ProcessIdentity | null {
  const stat = readStat(pid);
  return stat && stat.state !== 'Z' ? { pid, start: stat.start } : null;
}

/** Whether the very process `who` names is still running. */
export function isRunning(who: ProcessIdentity): boolean {
  return identify(who.pid)?.start === who.start;
}

/** Whether `who` still runs and still leads its own process group (what a group signal needs). */
export function leadsItsGroup(who: ProcessIdentity): boolean {
  const stat = readStat(who.pid);
  return stat !== null && stat.state !== 'Z' && stat.start === who.start && stat.pgrp === who.pid;
}

/** Whether `/proc` can tell processes apart here; without it no pid file is acted on. */
export function canIdentify(): boolean {
  return identify(process.pid) !== null;
}
