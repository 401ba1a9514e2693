import type { Egress } from '../../net/egress.js';
import { DeliveryError } from '../../errors/delivery-error.js';
import type { DeliveryMessage, DeliveryProvider } from './provider.js';

/**
 * POSTs `{schedule, status, error?, output, at}` (plus ids) to the URL configured for the channel in
 * `webhooks.channels`, through egress so the outbound rules apply.
 */
export function createWebhookProvider(deps: {
  egress: Egress;
  channels: Record<string, string>;
  timeoutMs?: number;
}): DeliveryProvider {
  return {
    async deliver(channelId: string, message: DeliveryMessage) {
      const url = deps.channels[channelId];
      if (!url) {
        throw new DeliveryError(`no webhook URL is configured for channel "${channelId}"`, true);
      }
      const body = JSON.stringify({
        schedule: message.scheduleName,
        schedule_id: message.scheduleId,
        run_id: message.runId,
        status: message.status,
        ...(message.error ? { error: message.error } : {}),
        output: message.output,
        at: message.at,
      });
      let res;
      try {
        res = await deps.egress.fetch(url, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body,
          maxBytes: 64 * 1024,
          ...(deps.timeoutMs ? { timeoutMs: deps.timeoutMs } : {}),
        });
      } catch (err) {
        throw new DeliveryError(`webhook ${channelId}: ${(err as Error).message}`, false);
      }
      if (res.status < 200 || res.status >= 300) {
        // 4xx other than 408/429 will not get better by retrying.
        const permanent =
          res.status >= 400 && res.status < 500 && res.status !== 408 && res.status !== 429;
        throw new DeliveryError(`webhook ${channelId} answered HTTP ${res.status}`, permanent);
      }
    },
  };
}
