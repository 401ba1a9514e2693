import { describe, expect, it } from 'vitest';
import { AppError } from '../../src/errors/catalogue.js';
import { QueueTimeoutError } from '../../src/errors/queue-errors.js';

describe('QueueTimeoutError', () => {
  it('is an internal queue_timeout error naming the timeout in its message and details', () => {
    const err = new QueueTimeoutError(1500);
    expect(err).toBeInstanceOf(AppError);
    expect(err).toBeInstanceOf(QueueTimeoutError);
    expect(err).toMatchObject({
      name: 'QueueTimeoutError',
      code: 'queue_timeout',
      status: 500,
      message: 'no result within 1500 ms',
      details: { timeoutMs: 1500 },
    });
  });
});

describe('WorkerStoppedError', () => {
  it('is an internal worker_stopped error that says what happened', async () => {
    const { WorkerStoppedError } = await import('../../src/errors/queue-errors.js');
    expect(new WorkerStoppedError()).toMatchObject({
      name: 'WorkerStoppedError',
      code: 'worker_stopped',
      status: 500,
      message: 'the worker running this script stopped',
    });
  });
});
