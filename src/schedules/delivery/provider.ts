import type { ProviderName } from '../schedule-schema.js';

/** What a schedule run sends to its `output_target`. */
export interface DeliveryMessage {
  scheduleId: string;
  scheduleName: string;
  runId: string;
  status: 'success' | 'error';
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
