/**
 * A script thread's module when the build bundled the thread's code: `run-task.bundle.cjs`
 * beside this file, loaded with its code cache (`bundle-loader.ts`); its default export is
 * run-task.ts's.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadBundle } from './bundle-loader.js';
import type { UntimedOutcome } from '../../queue/script-runs.js';
import type { RunTask } from './task-types.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const { exports } = loadBundle(path.join(here, 'run-task.bundle.cjs'));

export default exports.default as (task: RunTask) => UntimedOutcome;
