import { Worker, type Job, type Processor, type WorkerOptions } from 'bullmq';

/**
 * A BullMQ worker that starts a job fetched from an idle queue before fetching the next.
 *
 * Below its concurrency, BullMQ's main loop fetches jobs in sequence: having fetched one, it
 * awaits a second `moveToActive` before it hands the first to the processor. On an idle queue
 * that second round trip finds nothing, and the run waited for it all the same (about a tenth
 * of a script run at concurrency 1, in `bench:script-timeline`). Here, when the job came to a
 * worker that had found the queue empty (BullMQ's 'drained') and has no other job in hand, the
 * fetch that follows it answers "nothing now" without asking Redis, so the loop hands the job
 * over first and fetches on its next turn. No fetch is lost: the one skipped is made then.
 * POST /test at concurrency 1 in one process: p50 1.72 and 1.77 ms before, 1.61 and 1.65 after
 * (alternated runs of `bench:scripts`); runs/s at concurrency 32 unchanged (1,792 and 1,772;
 * 1,811 and 1,750).
 *
 * Only then: under load, BullMQ's sequence batches the jobs that arrive together, and processing
 * each at once spread the same work over more wake-ups and smaller writes. Skipping after every
 * fetch while nothing was being processed (300–500 skips in 6,000 runs at concurrency 32)
 * cost 8–15% of the runs/s there; a job reaching an idle worker is 1 run in 100 at that load.
 *
 * Every BullMQ worker of Steward is one of these, so that V8 sees one class in BullMQ's calls:
 * beside a busy plain Worker in the same process, the script runs at concurrency 32 lost about
 * 5% of their runs/s with the skips turned off, and nothing once that worker was one of these too.
 *
 * A skip never stands for a blocking fetch: BullMQ blocks only once it has heard the queue is
 * drained, and that cancels the skip, so a job whose marker a blocking fetch took is fetched.
 */
export class StartFirstWorker<Data, Result, Name extends string = string> extends Worker<
  Data,
  Result,
  Name
> {
  /** The job the last fetch returned, until the processor is given it. */
  private fetched: Job<Data, Result, Name> | null = null;
  /** Jobs between fetch and completion (stored in Redis) now. */
  private inFlight = 0;
  /** Whether BullMQ found the queue empty since the last job it handled (its `drained`). */
  private idle = true;

  constructor(name: string, processor: Processor<Data, Result, Name>, opts: WorkerOptions) {
    super(name, processor, opts);
    this.on('drained', () => {
      this.idle = true;
      this.fetched = null;
    });
  }

  protected override async moveToActive(
    token: string,
    name?: string,
  ): Promise<Job<Data, Result, Name>> {
    if (this.fetched !== null && this.inFlight === 0) {
      this.fetched = null;
      // BullMQ's own "no job now" (its declared type leaves it out).
      return undefined as unknown as Job<Data, Result, Name>;
    }
    const idle = this.idle;
    const job = await super.moveToActive(token, name);
    this.fetched = idle && job ? job : null;
    return job;
  }

  override async processJob(
    job: Job<Data, Result, Name>,
    token: string,
    fetchNextCallback?: () => boolean,
  ): Promise<void | Job<Data, Result, Name>> {
    if (this.fetched === job) this.fetched = null;
    this.idle = false;
    this.inFlight++;
    try {
      return await super.processJob(job, token, fetchNextCallback);
    } finally {
      this.inFlight--;
    }
  }
}
