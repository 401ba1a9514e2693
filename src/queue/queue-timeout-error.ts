/** `QueueClient.run` gave up waiting: no result within its deadline. */
export class QueueTimeoutError extends Error {
  override name = 'QueueTimeoutError';
}
