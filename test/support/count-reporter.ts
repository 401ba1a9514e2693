import type { Reporter, TestModule } from 'vitest/node';

/** Prints the plain `N passed, N failed` line that CI reads (vitest's own summary is not read). */
export default class CountReporter implements Reporter {
  onTestRunEnd(modules: ReadonlyArray<TestModule>): void {
    let passed = 0;
    let failed = 0;
    let skipped = 0;
    for (const mod of modules) {
      let failedHere = 0;
      for (const test of mod.children.allTests()) {
        const state = test.result().state;
        if (state === 'passed') passed++;
        else if (state === 'failed') failedHere++;
        else skipped++;
      }
      // A file that failed to load, or whose hooks failed (its tests then show as skipped),
      // must still count as a failure.
      if (failedHere === 0 && mod.state() === 'failed') failedHere = 1;
      failed += failedHere;
    }
    process.stdout.write(`\n${passed} passed, ${failed} failed, ${skipped} skipped\n`);
  }
}
