/**
 * The names a script sees besides the builtins. The worker's host modules are typed by this
 * list, and the syntax check accepts exactly these, so the two cannot drift apart.
 *
 * A module of its own, without zod: the script thread imports it, and zod's modules took about
 * 60 ms of each new thread's start (a thread started in ~170 ms with them, measured with a
 * worker that imports `run-task.js` and answers).
 */
export const scriptGlobals = [
  'http',
  'json',
  'time',
  'secrets',
  'format',
  'hmac',
  'base64',
  'args',
] as const;
export type ScriptGlobal = (typeof scriptGlobals)[number];
