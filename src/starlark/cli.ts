/**
 * `steward starlark run FILE [--function NAME] [--args JSON]` and `steward starlark check FILE`.
 * The result goes to stdout as JSON; `print` output and errors go to stderr.
 */
import fs from 'node:fs';
import {
  StarlarkExecError,
  StarlarkStaticErrors,
  StarlarkSyntaxError,
  callFunction,
  check,
  execModule,
  toJS,
  toStarlark,
  type Value,
} from './index.js';

const USAGE =
  'usage: steward starlark run FILE [--function NAME] [--args JSON] | steward starlark check FILE';

interface Io {
  out: (s: string) => void;
  err: (s: string) => void;
}

const defaultIo: Io = {
  out: (s) => process.stdout.write(s + '\n'),
  err: (s) => process.stderr.write(s + '\n'),
};

function flag(argv: string[], name: string): string | undefined {
  const i = argv.indexOf(name);
  if (i < 0) return undefined;
  const v = argv[i + 1];
  if (v === undefined) throw new Error(`${name} needs a value`);
  argv.splice(i, 2);
  return v;
}

function report(e: unknown, io: Io): number {
  if (e instanceof StarlarkExecError) io.err(`${e.message}\n${e.traceback}`);
  else if (e instanceof StarlarkStaticErrors) for (const x of e.errors) io.err(x.message);
  else if (e instanceof StarlarkSyntaxError) io.err(e.message);
  else io.err(`error: ${e instanceof Error ? e.message : String(e)}`);
  return 1;
}

function run(
  file: string,
  fnName: string | undefined,
  argsJson: string | undefined,
  io: Io,
): number {
  const source = fs.readFileSync(file, 'utf8');
  const mod = execModule({ file, source, print: (m) => io.err(m) });
  let result: Value | undefined;
  const name = fnName ?? (mod.globals.has('main') ? 'main' : undefined);
  if (name !== undefined) {
    const fn = mod.globals.get(name);
    if (fn === undefined) throw new Error(`${file}: no global named ${name}`);
    let args: Value[] = [];
    let kwargs: Array<[string, Value]> | null = null;
    if (argsJson !== undefined) {
      const parsed = JSON.parse(argsJson) as unknown;
      if (Array.isArray(parsed)) args = parsed.map((v) => toStarlark(v));
      else if (parsed !== null && typeof parsed === 'object') {
        kwargs = Object.entries(parsed).map(([k, v]) => [k, toStarlark(v)]);
      } else
        throw new Error('--args must be a JSON array (positional) or object (keyword arguments)');
    }
    result = callFunction(fn, args, kwargs, { print: (m) => io.err(m) });
  } else {
    result = mod.globals.get('result');
  }
  io.out(resultJson(result === undefined ? null : toJS(result)));
  return 0;
}

/**
 * JSON text of a result. JSON.stringify throws on a bigint (an int beyond 2^53); those are
 * written as their exact digits, which JSON numbers allow.
 */
function resultJson(v: unknown): string {
  if (typeof v === 'bigint') return v.toString();
  if (Array.isArray(v)) return `[${v.map(resultJson).join(',')}]`;
  if (typeof v === 'object' && v !== null && Object.getPrototypeOf(v) === Object.prototype) {
    const members = Object.entries(v).map(([k, x]) => `${JSON.stringify(k)}:${resultJson(x)}`);
    return `{${members.join(',')}}`;
  }
  return JSON.stringify(v) ?? 'null';
}

/** Entry point for `steward starlark ...`; returns the process exit code. */
export async function starlarkCommand(argv: string[], io: Io = defaultIo): Promise<number> {
  const rest = [...argv];
  try {
    const fnName = flag(rest, '--function');
    const argsJson = flag(rest, '--args');
    const [cmd, file] = rest;
    if (file === undefined || (cmd !== 'run' && cmd !== 'check')) {
      io.err(USAGE);
      return 2;
    }
    if (cmd === 'check') {
      const errors = check(file, fs.readFileSync(file, 'utf8'));
      for (const e of errors) io.err(e.message);
      return errors.length === 0 ? 0 : 1;
    }
    return run(file, fnName, argsJson, io);
  } catch (e) {
    return report(e, io);
  }
}
