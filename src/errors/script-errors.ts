import { AppError } from './catalogue.js';

export interface ScriptDetails extends Record<string, unknown> {
  /** The script's name with `.star`. */
  script: string;
}

/** 404 `script_not_found`. */
export class ScriptNotFoundError extends AppError<ScriptDetails> {
  declare readonly details: ScriptDetails;
  constructor(script: string, message = `script ${script} not found`) {
    super('script_not_found', message, { script }, false);
    this.name = 'ScriptNotFoundError';
  }
}

/**
 * Why a script may not run: not approved yet, rejected, changed since it was approved, or an
 * approval that does not verify (written into Redis by someone without the approval key).
 */
export type ScriptRefusal = 'pending' | 'rejected' | 'modified' | 'unverified';

export interface ScriptRefusedDetails extends ScriptDetails {
  reason: ScriptRefusal;
}

const refusalMessages: Record<ScriptRefusal, (script: string) => string> = {
  pending: (s) =>
    `script ${s} is pending approval; an administrator must approve it before it can run`,
  rejected: (s) => `script ${s} was rejected`,
  modified: (s) =>
    `script ${s} changed since it was approved; an administrator must approve it again`,
  unverified: (s) =>
    `script ${s} is not approved: its approval does not verify (it was not made by this Steward); an administrator must approve it again`,
};

/**
 * A run refused by the approval rules: 403 `script_not_approved` (pending, rejected, unverified) or 409
 * `script_modified`. `details` say why; they stay out of the HTTP body, which the spec fixes.
 * `message` overrides the template where the refusal was worded elsewhere (the worker, an
 * approval of a text that was not the one reviewed).
 */
export class ScriptRefusedError extends AppError<ScriptRefusedDetails> {
  declare readonly details: ScriptRefusedDetails;
  constructor(script: string, reason: ScriptRefusal, message?: string) {
    super(
      reason === 'modified' ? 'script_modified' : 'script_not_approved',
      message ?? refusalMessages[reason](script),
      { script, reason },
      false,
    );
    this.name = 'ScriptRefusedError';
  }
}

export interface SyntaxPosition extends Record<string, unknown> {
  line: number;
  column: number;
}

/** 400 `invalid_script`: the source does not parse; `line` and `column` are in the body. */
export class InvalidScriptError extends AppError<SyntaxPosition> {
  declare readonly details: SyntaxPosition;
  constructor(message: string, position: SyntaxPosition) {
    super('invalid_script', message, position);
    this.name = 'InvalidScriptError';
  }
}
