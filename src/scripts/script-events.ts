import type { ScriptRecord } from '../contracts/script-record.js';

/**
 * What happened to a script, for whoever follows reviews (the chat approval requests): a version
 * became pending (it now waits for review), or a decision was made.
 */
export type ScriptChange =
  | { kind: 'pending'; record: ScriptRecord }
  | { kind: 'approved' | 'rejected'; record: ScriptRecord; by: string };

export type ScriptChangeListener = (change: ScriptChange) => Promise<void> | void;

/**
 * The script service's events. The service publishes after each change is stored; followers
 * (script reviews in chat) subscribe when they are built, so the service is built first and
 * knows none of them.
 */
export interface ScriptEvents {
  /** Follows every change from now on; returns the unsubscribe. */
  subscribe(listener: ScriptChangeListener): () => void;
  /**
   * Tells every follower, one after another, and resolves when all are done: a change made
   * through the API is announced by the time the API answers. A follower's failure goes to
   * `failed` and never reaches the change or the other followers.
   */
  publish(change: ScriptChange, failed: (err: unknown) => void): Promise<void>;
}

export function createScriptEvents(): ScriptEvents {
  const listeners = new Set<ScriptChangeListener>();
  return {
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    async publish(change, failed) {
      for (const listener of [...listeners]) {
        try {
          await listener(change);
        } catch (err) {
          failed(err);
        }
      }
    },
  };
}
