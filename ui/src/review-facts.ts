import type { ScriptDetail, ScriptListEntry } from './api/types.js';

/**
 * What the review says around the diff, worked out from the API's answers: who proposed the text,
 * what runs meanwhile, and which pending script comes next. Pure, so it is tested without a
 * browser.
 */

/** Who wrote a version (its history `author`): the AI, a file, or the administrator by name. */
export function proposerLabel(author: string): string {
  if (author === 'mcp') return 'the AI, through the tool server';
  if (author === 'filesystem') return 'a file on disk (imported by Steward)';
  return `the administrator ${author}`;
}

/** What runs while the text waits, and what each decision changes. */
export function whileUndecided(detail: Pick<ScriptDetail, 'status' | 'approved_commit'>): {
  tone: 'blue' | 'yellow' | 'red' | 'green';
  text: string;
} {
  const approved = detail.approved_commit?.slice(0, 8);
  if (detail.status === 'approved') {
    return { tone: 'green', text: 'This text is approved: it is what runs.' };
  }
  if (detail.status === 'rejected') {
    return { tone: 'red', text: 'Rejected: nothing of this script runs until a text is approved.' };
  }
  if (approved) {
    return {
      tone: 'blue',
      text: `The approved version ${approved} keeps running. Approving runs this text instead; rejecting stops the script altogether.`,
    };
  }
  return {
    tone: 'yellow',
    text: 'Never approved: nothing of this script runs until you approve it.',
  };
}

/** The pending script to review after `current`: the oldest change first, `current` excluded. */
export function nextPending(list: ScriptListEntry[], current: string): string | null {
  const pending = list
    .filter((s) => s.status === 'pending' && s.name !== current)
    .sort((a, b) => a.modified_at.localeCompare(b.modified_at) || a.name.localeCompare(b.name));
  return pending[0]?.name ?? null;
}
