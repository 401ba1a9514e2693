import { AppError } from './catalogue.js';

export interface DeliveryDetails extends Record<string, unknown> {
  permanent: boolean;
}

/**
 * A schedule's output could not be delivered. `permanent` errors are not retried (e.g. an unknown
 * channel, a provider not configured).
 */
export class DeliveryError extends AppError<DeliveryDetails> {
  declare readonly details: DeliveryDetails;
  readonly permanent: boolean;
  constructor(message: string, permanent: boolean) {
    super('delivery_failed', message, { permanent });
    this.name = 'DeliveryError';
    this.permanent = permanent;
  }
}
