/** Runs the conformance corpus: every mode of both upstream suites. */
import fs from 'node:fs';
import path from 'node:path';
import {
  EvalThread,
  StarlarkError,
  StarlarkExecError,
  StarlarkSyntaxError,
  check,
  defaultUniverse,
  execModule,
  parse,
  type DialectOptions,
  type Value,
} from '../index.js';
import { assertHostBuiltins, type Failure } from './assert-host.js';
import { splitBazel, splitGo, type Chunk } from './chunks.js';
import { lineIn, matchGo, staticErrors, toRegExp, type ErrorAt } from './error-matching.js';
import { makeFixtures } from './fixtures.js';
import { hostModules } from './host-modules.js';
import type { ChunkResult, FileReport, Report } from './results.js';
import { skipReason, skippedFile } from './skips.js';

export type { ChunkResult, FileReport, Report, Status } from './results.js';

const LIMITS = { maxSteps: 50_000_000, timeoutMs: 20_000 };

class Runner {
  private assertModule: ReadonlyMap<string, Value> | null = null;
  private readonly universe = defaultUniverse();
  private failures: Failure[] = [];
  private readonly hostBuiltins = assertHostBuiltins((f) => this.failures.push(f));

  constructor(private readonly dir: string) {}

  private loadAssert(thread: EvalThread): ReadonlyMap<string, Value> {
    if (this.assertModule !== null) return this.assertModule;
    const file = 'assert.star';
    const source = fs.readFileSync(path.join(this.dir, 'go/starlarktest/assert.star'), 'utf8');
    const universe = new Map([...this.universe, ...this.hostBuiltins]);
    const r = execModule({
      file,
      source,
      universe,
      options: { set: true },
      limits: LIMITS,
      print: (m) => thread.print(m),
    });
    this.assertModule = r.globals;
    return r.globals;
  }

  private load(module: string, thread: EvalThread): ReadonlyMap<string, Value> {
    if (module === 'assert.star') return this.loadAssert(thread);
    const m = hostModules().get(module);
    if (m === undefined) throw new StarlarkError(`cannot load ${module}: no such module`);
    return new Map([[module.replace(/\.star$/, ''), m]]);
  }

  /** Executes a chunk; returns the runtime error (if any) and the assertion failures. */
  private exec(
    file: string,
    source: string,
    options: DialectOptions,
    predeclared: Map<string, Value>,
  ): {
    error: ErrorAt | null;
    failures: Failure[];
    statics: StarlarkSyntaxError[];
  } {
    const failures: Failure[] = [];
    this.failures = failures;
    const universe = new Map([...this.universe]);
    universe.set('error', this.hostBuiltins.get('error') as Value);
    try {
      const r = execModule({
        file,
        source,
        predeclared,
        universe,
        options: { set: true, ...options },
        limits: LIMITS,
        load: (m, th) => this.load(m, th),
        print: () => {},
      });
      void r;
      return { error: null, failures, statics: [] };
    } catch (e) {
      const statics = staticErrors(e);
      if (statics !== null) return { error: null, failures, statics };
      if (!(e instanceof StarlarkExecError)) throw e;
      const line = lineIn(file, e.callStack);
      return {
        error: { line, message: e.bare, full: `${e.bare}\n${e.traceback}` },
        failures,
        statics: [],
      };
    }
  }

  goExec(rel: string, chunk: Chunk, fixtures: Map<string, Value>): ChunkResult {
    const file = path.basename(rel);
    const problems: string[] = [];
    const { error, failures, statics } = this.exec(file, chunk.source, chunk.options, fixtures);
    const errors: ErrorAt[] = statics.map((s) => ({ line: s.line, message: s.bare, full: s.bare }));
    if (error !== null && skipReason(rel, error.line) === undefined) errors.push(error);
    const expects = chunk.expects.filter((x) => skipReason(rel, x.line) === undefined);
    matchGo(errors, expects, problems);
    for (const f of failures) {
      const line = lineIn(file, f.stack);
      if (skipReason(rel, line) === undefined) problems.push(`line ${line}: ${f.message}`);
    }
    return {
      startLine: chunk.startLine,
      status: problems.length === 0 ? 'pass' : 'fail',
      problems,
    };
  }

  bazelExec(rel: string, chunk: Chunk): ChunkResult {
    const problems: string[] = [];
    const neutral = chunk.expects.filter((x) => x.impl === 'all');
    const prefixed = chunk.expects.filter((x) => x.impl !== 'all');
    let patterns: string[] = neutral.map((x) => x.pattern);
    let anyOf = false;
    if (neutral.length === 0 && prefixed.some((x) => x.impl === 'go' || x.impl === 'java')) {
      patterns = prefixed.map((x) => x.pattern);
      anyOf = true;
    }
    const { error, failures, statics } = this.exec(path.basename(rel), chunk.source, {}, new Map());
    const err =
      error ??
      (statics.length > 0
        ? { line: 0, message: statics.map((s) => s.bare).join('\n'), full: '' }
        : null);
    if (err === null) {
      if (patterns.length > 0)
        problems.push(`expected error matching ${JSON.stringify(patterns)}; got success`);
    } else if (patterns.length === 0) {
      problems.push(`unexpected error: ${err.message}`);
    } else {
      const text = `${err.message}\n${err.full}`.toLowerCase();
      const ok = (p: string): boolean => {
        const lp = p.toLowerCase();
        return text.includes(lp) || toRegExp(lp)?.test(text) === true;
      };
      const matched = anyOf ? patterns.some(ok) : patterns.every(ok);
      if (!matched)
        problems.push(
          `error ${JSON.stringify(err.message)} does not match ${JSON.stringify(patterns)}`,
        );
    }
    for (const f of failures) problems.push(`assertion: ${f.message}`);
    return {
      startLine: chunk.startLine,
      status: problems.length === 0 ? 'pass' : 'fail',
      problems,
    };
  }

  goParse(rel: string, chunk: Chunk): ChunkResult {
    const problems: string[] = [];
    const errors: ErrorAt[] = [];
    try {
      parse(path.basename(rel), chunk.source);
    } catch (e) {
      if (!(e instanceof StarlarkSyntaxError)) throw e;
      errors.push({ line: e.line, message: e.bare, full: e.message });
    }
    matchGo(errors, chunk.expects, problems);
    return {
      startLine: chunk.startLine,
      status: problems.length === 0 ? 'pass' : 'fail',
      problems,
    };
  }

  goResolve(rel: string, chunk: Chunk): ChunkResult {
    const problems: string[] = [];
    const errs = check(`conformance/${path.basename(rel)}`, chunk.source, {
      predeclared: ['M'],
      universe: ['U', 'float'],
      options: chunk.options,
    });
    matchGo(
      errs.map((e) => ({ line: e.line, message: e.bare, full: e.message })),
      chunk.expects,
      problems,
    );
    return {
      startLine: chunk.startLine,
      status: problems.length === 0 ? 'pass' : 'fail',
      problems,
    };
  }

  runFile(rel: string, mode: string): FileReport | null {
    const text = fs.readFileSync(path.join(this.dir, rel), 'utf8');
    const report: FileReport = { file: rel, mode, passed: 0, failed: 0, skipped: 0, chunks: [] };
    const add = (r: ChunkResult): void => {
      report.chunks.push(r);
      if (r.status === 'pass') report.passed++;
      else if (r.status === 'fail') report.failed++;
      else report.skipped++;
    };
    const fileSkip = skippedFile(rel);
    let chunks: Chunk[];
    switch (mode) {
      case 'go-exec':
      case 'go-parse':
      case 'go-resolve':
        chunks = splitGo(text);
        break;
      case 'go-exec-whole-file':
        chunks = [{ startLine: 1, source: text, options: {}, expects: [], trivial: false }];
        break;
      case 'bazel-exec':
        chunks = splitBazel(text);
        break;
      case 'parse-smoke':
        chunks = [{ startLine: 1, source: text, options: {}, expects: [], trivial: false }];
        break;
      default:
        return null;
    }
    for (const chunk of chunks) {
      if (chunk.trivial) continue;
      if (fileSkip !== undefined) {
        add({ startLine: chunk.startLine, status: 'skip', problems: [fileSkip] });
        continue;
      }
      try {
        if (mode === 'go-exec') add(this.goExec(rel, chunk, makeFixtures(false)));
        else if (mode === 'go-exec-whole-file') add(this.goExec(rel, chunk, makeFixtures(true)));
        else if (mode === 'bazel-exec') add(this.bazelExec(rel, chunk));
        else if (mode === 'go-resolve') add(this.goResolve(rel, chunk));
        else add(this.goParse(rel, chunk));
      } catch (e) {
        add({
          startLine: chunk.startLine,
          status: 'fail',
          problems: [`host exception: ${(e as Error).stack ?? String(e)}`],
        });
      }
    }
    return report;
  }
}

export function runConformance(dir: string, only?: (file: string) => boolean): Report {
  const index = JSON.parse(fs.readFileSync(path.join(dir, 'chunks.json'), 'utf8')) as {
    files: Array<{ path: string; mode: string }>;
  };
  const runner = new Runner(dir);
  const report: Report = { files: [], passed: 0, failed: 0, skipped: 0 };
  for (const f of index.files) {
    if (only !== undefined && !only(f.path)) continue;
    const r = runner.runFile(f.path, f.mode);
    if (r === null) continue;
    report.files.push(r);
    report.passed += r.passed;
    report.failed += r.failed;
    report.skipped += r.skipped;
  }
  return report;
}
