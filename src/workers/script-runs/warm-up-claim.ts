/**
 * One interpreter warm-up per pool: the pool passes every thread the same shared flag (Piscina's
 * `workerData`), and the first thread to load claims it. Anything else (a test importing the
 * thread module directly) gets no warm-up.
 */
export interface WarmUpFlag {
  warmUp: Int32Array;
}

export function createWarmUpFlag(): WarmUpFlag {
  return { warmUp: new Int32Array(new SharedArrayBuffer(4)) };
}

export function claimWarmUp(data: unknown): boolean {
  const flag = (data as Partial<WarmUpFlag> | null | undefined)?.warmUp;
  if (!(flag instanceof Int32Array)) return false;
  return Atomics.compareExchange(flag, 0, 0, 1) === 0;
}
