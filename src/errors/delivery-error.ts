import { AppError } from './catalogue.js';

export interface DeliveryDetails extends Record<string, unknown> {
  permanent: boolean;
  /** The message may have reached the provider: recorded `unknown`, never sent again. */
  unknown: boolean;
}

/**
 * A schedule's output could not be delivered. `permanent` errors are not retried (e.g. an unknown
 * channel, a provider not configured).
 */
export class DeliveryError extends AppError<DeliveryDetails> {
  declare readonly details: DeliveryDetails;
  readonly permanent: boolean;
  constructor(message: string, permanent: boolean, unknown = false) {
    super('delivery_failed', message, { permanent: permanent || unknown, unknown });
    this.name = 'DeliveryError';
    this.permanent = permanent || unknown;
  }
}
