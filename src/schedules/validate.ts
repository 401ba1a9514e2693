import { BadRequestError } from '../errors/request-errors.js';
import { assertValidCron, assertValidTimezone } from './cron.js';
import type { ScheduleConfig } from './schedule-schema.js';

const scriptNamePattern = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}\.star$/;

/** Script names are stored with `.star`, as the scripts API names them; `report` → `report.star`. */
export function normalizeScriptName(name: string): string {
  return name.endsWith('.star') ? name : `${name}.star`;
}

/**
 * Checks a whole (merged) schedule config and answers 400 naming the first problem: partial
 * updates validate the result, so changing `type` re-checks `script_name`/`prompt`.
 */
export function assertValidConfig(config: ScheduleConfig): void {
  try {
    assertValidTimezone(config.timezone);
  } catch (err) {
    throw new BadRequestError(`body.timezone: ${(err as Error).message}`);
  }
  try {
    assertValidCron(config.cron_expr, config.timezone);
  } catch (err) {
    throw new BadRequestError(`body.cron_expr: ${(err as Error).message}`);
  }
  if (config.type === 'script') {
    if (!config.script_name)
      throw new BadRequestError('body.script_name: required when type is script');
    if (!scriptNamePattern.test(config.script_name)) {
      throw new BadRequestError(
        'body.script_name: expected a script name such as report.star (letters, digits, _ and -)',
      );
    }
  } else if (!config.prompt || config.prompt.trim() === '') {
    throw new BadRequestError('body.prompt: required when type is agent');
  }
}
