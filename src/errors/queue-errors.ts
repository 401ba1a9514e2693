import { AppError } from './catalogue.js';

export interface QueueTimeoutDetails extends Record<string, unknown> {
  timeoutMs: number;
}

/** A queued job gave no result in time (no worker, or the worker died). */
export class QueueTimeoutError extends AppError<QueueTimeoutDetails> {
  declare readonly details: QueueTimeoutDetails;
  constructor(timeoutMs: number) {
    super('queue_timeout', `no result within ${timeoutMs} ms`, { timeoutMs });
    this.name = 'QueueTimeoutError';
  }
}

/** The worker running a job stopped (its process died) before it answered. */
export class WorkerStoppedError extends AppError {
  constructor() {
    super('worker_stopped', 'the worker running this script stopped');
    this.name = 'WorkerStoppedError';
  }
}
