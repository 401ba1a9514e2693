import type { TargetProviderName as ProviderName } from '../../contracts/provider-names.js';

/** What a schedule run sends to its `output_target`. */
export interface DeliveryMessage {
  /** One per (run, target): a provider that can send in parts sends each part once per id. */
  deliveryId: string;
  scheduleId: string;
  scheduleName: string;
  runId: string;
  status: 'success' | 'error';
  /** Why the run failed ('' on success); already redacted. */
  error: string;
  /** Already redacted. */
  output: string;
  /** ISO 8601 time the run finished. */
  at: string;
}

export interface DeliveryProvider {
  /** Resolves when delivered; throws DeliveryError (or any error, retried) otherwise. */
  deliver(channelId: string, message: DeliveryMessage): Promise<void>;
}

export type ProviderRegistry = Partial<Record<ProviderName, DeliveryProvider>>;
