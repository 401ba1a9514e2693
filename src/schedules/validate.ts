import { BadRequestError } from '../errors/request-errors.js';
import { assertValidCron, assertValidTimezone } from './cron.js';
import { isScriptName } from '../scripts/script-schema.js';
import type { ScheduleConfig } from './schedule-schema.js';

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
    if (!isScriptName(config.script_name)) {
      throw new BadRequestError(
        'body.script_name: expected a script name such as report.star (letters, digits, _ and -)',
      );
    }
  } else if (!config.prompt || config.prompt.trim() === '') {
    throw new BadRequestError('body.prompt: required when type is agent');
  }
}
