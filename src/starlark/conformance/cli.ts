/** `node dist/starlark/conformance/cli.js DIR [--verbose] [FILTER]`: prints a per-file table and a summary line. */
import { runConformance } from './runner.js';

function main(argv: string[]): number {
  const verbose = argv.includes('--verbose') || argv.includes('-v');
  const rest = argv.filter((a) => !a.startsWith('-'));
  const dir = rest[0] ?? '../shared/starlark-conformance';
  const filter = rest[1];
  const report = runConformance(dir, filter === undefined ? undefined : (f) => f.includes(filter));
  const width = Math.max(...report.files.map((f) => f.file.length), 4);
  console.log(`${'file'.padEnd(width)}  ${'mode'.padEnd(18)} pass fail skip`);
  for (const f of report.files) {
    console.log(
      `${f.file.padEnd(width)}  ${f.mode.padEnd(18)} ${String(f.passed).padStart(4)} ${String(f.failed).padStart(4)} ${String(f.skipped).padStart(4)}`,
    );
    if (verbose) {
      for (const c of f.chunks) {
        if (c.status !== 'fail') continue;
        for (const p of c.problems.slice(0, 20)) console.log(`    chunk@${c.startLine}: ${p}`);
      }
    }
  }
  console.log(`${report.passed} passed, ${report.failed} failed, ${report.skipped} skipped`);
  return report.failed === 0 ? 0 : 1;
}

process.exitCode = main(process.argv.slice(2));
