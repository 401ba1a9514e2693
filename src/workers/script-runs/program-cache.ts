import type { CompiledModule } from '../../starlark/index.js';

export interface ProgramCacheLimits {
  /** Programs kept at most. */
  entries: number;
  /**
   * Source bytes kept at most. Compiled code lives in the script thread's heap, which the run's
   * memory limit also bounds, so the cache must stay small beside it.
   */
  sourceBytes: number;
}

export const defaultProgramCacheLimits: ProgramCacheLimits = {
  entries: 32,
  sourceBytes: 2 * 1024 * 1024,
};

export interface ProgramCache {
  /** The compiled program for this hash and text, compiling (and keeping) it on a miss. */
  get(hash: string, source: string, compile: () => CompiledModule): CompiledModule;
  readonly size: number;
}

/**
 * A script thread's compiled programs by approved hash, least recently used dropped first: a
 * second run of the same script skips parsing, resolving and compiling. The text is compared as
 * well as the hash, so a hit never runs other text than the task's.
 */
export function createProgramCache(
  limits: ProgramCacheLimits = defaultProgramCacheLimits,
): ProgramCache {
  // A Map iterates in insertion order: re-inserting on each hit keeps the oldest first.
  const programs = new Map<string, CompiledModule>();
  let bytes = 0;
  const cost = (p: CompiledModule) => p.source.length * 2;

  return {
    get(hash, source, compile) {
      const hit = programs.get(hash);
      if (hit !== undefined && hit.source === source) {
        programs.delete(hash);
        programs.set(hash, hit);
        return hit;
      }
      const program = compile();
      if (hit !== undefined) {
        programs.delete(hash);
        bytes -= cost(hit);
      }
      if (cost(program) > limits.sourceBytes) return program;
      programs.set(hash, program);
      bytes += cost(program);
      for (const [oldest, old] of programs) {
        if (programs.size <= limits.entries && bytes <= limits.sourceBytes) break;
        programs.delete(oldest);
        bytes -= cost(old);
      }
      return program;
    },
    get size() {
      return programs.size;
    },
  };
}
