/**
 * Runtime helpers behind some of gen-fast-call.ts's method shapes: the method's own work,
 * reached without `callAt`'s lookup, the step-charging wrapper's closure and argument
 * unpacking, when the receiver and arguments have the types the method checks for; anything
 * else is the generic call, with the same arguments.
 */
import { chargeWork, type Value } from '../values/index.js';
import { replaceIn } from '../lib/index.js';
import { callAt, type MethodSite } from './compile-call.js';
import type { Frame } from './function.js';

/** `s.replace(old, new)`: the string method's charge for scanning `s`, then its replacement. */
function strReplace(f: Frame, site: MethodSite, s: Value, old: Value, nw: Value): Value {
  if (typeof s !== 'string' || typeof old !== 'string' || typeof nw !== 'string')
    return callAt(f, site, s, [old, nw]);
  f.pos = site.pos;
  chargeWork(f.thread, s.length);
  return replaceIn(f.thread, s, old, nw, -1);
}

export function fastHelpers() {
  return { strReplace };
}
