import { BadRequestError } from '../errors/request-errors.js';
import { assertValidCron, assertValidTimezone } from './cron.js';
import { isScriptName } from '../contracts/script-names.js';
import type { OutputTarget, ScheduleConfig } from './schedule-schema.js';

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

/**
 * Checks where a schedule's output goes, before anything is stored: a run would otherwise fail
 * its delivery on every firing. Telegram chat ids are integers (negative for groups); a webhook
 * channel names one of `webhooks.channels`.
 */
export function assertValidTarget(
  target: OutputTarget | undefined,
  webhookChannels: readonly string[],
): void {
  if (!target) return;
  if (target.provider === 'telegram' && !/^-?\d{1,20}$/.test(target.channel_id)) {
    throw new BadRequestError(
      `body.output_target.channel_id: a Telegram chat id is an integer (negative for groups), not ${JSON.stringify(target.channel_id)}`,
    );
  }
  if (target.provider === 'slack' && !/^[CDGU][A-Z0-9]{2,}$/.test(target.channel_id)) {
    throw new BadRequestError(
      `body.output_target.channel_id: a Slack channel id starts with C, D or G (or a user id with U), not ${JSON.stringify(target.channel_id)}`,
    );
  }
  if (target.provider === 'discord' && !/^\d{17,20}$/.test(target.channel_id)) {
    throw new BadRequestError(
      `body.output_target.channel_id: a Discord channel id is a snowflake (17 to 20 digits), not ${JSON.stringify(target.channel_id)}`,
    );
  }
  if (target.provider === 'webhook' && !webhookChannels.includes(target.channel_id)) {
    throw new BadRequestError(
      `body.output_target.channel_id: no webhook channel ${JSON.stringify(target.channel_id)} is configured${webhookChannels.length ? ` (configured: ${webhookChannels.join(', ')})` : ' (webhooks.channels is empty)'}`,
    );
  }
}
