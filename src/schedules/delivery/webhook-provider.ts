import type { Egress } from '../../net/egress.js';
import { DeliveryError } from '../../errors/delivery-error.js';
import type { RunState } from '../schedule-records.js';
import type { DeliveryMessage, DeliveryProvider } from './provider.js';

/** As long as a chat part's claim: past every retry and sweep of the delivery. */
const CLAIM_KEEP_MS = 7 * 24 * 3600 * 1000;

/**
 * POSTs `{schedule, status, error?, output, at}` (plus ids) to the URL configured for the channel in
 * `webhooks.channels`, through egress so the outbound rules apply.
 *
 * Once per (run, channel), as chat parts are sent: the POST is claimed before it is sent, so a
 * retry that finds a claim its sender never settled (that worker died mid-POST) stops as
 * `unknown` instead of posting again, and one that finds it sent does not post again. A failure
 * the sender saw (an error answer, a refused connection, a timeout) lets the claim go, and the
 * POST is retried as before (`webhooks.retries`; receivers can tell repeats by `run_id`).
 */
export function createWebhookProvider(deps: {
  egress: Egress;
  channels: Record<string, string>;
  sends: Pick<RunState, 'claimWebhookSend' | 'markWebhookSent' | 'releaseWebhookSend'>;
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
      const claim = await deps.sends.claimWebhookSend(message.deliveryId, CLAIM_KEEP_MS);
      if (claim === 'sent') return;
      if (claim === 'sending') {
        throw new DeliveryError(
          `webhook ${channelId}: a POST of this run began and its sender stopped before it ended; it may or may not have arrived, not sent again`,
          true,
          true,
        );
      }
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
        await deps.sends.releaseWebhookSend(message.deliveryId);
        throw new DeliveryError(`webhook ${channelId}: ${(err as Error).message}`, false);
      }
      if (res.status < 200 || res.status >= 300) {
        await deps.sends.releaseWebhookSend(message.deliveryId);
        // 4xx other than 408/429 will not get better by retrying.
        const permanent =
          res.status >= 400 && res.status < 500 && res.status !== 408 && res.status !== 429;
        throw new DeliveryError(`webhook ${channelId} answered HTTP ${res.status}`, permanent);
      }
      await deps.sends.markWebhookSent(message.deliveryId);
    },
  };
}
