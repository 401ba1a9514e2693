import { unpackPositional } from '../values/ops.js';
import { registerMethods, type Bytes, type Thread, type Value } from '../values/index.js';
import { bytesView } from './string-iterables.js';

function elems(_t: Thread, args: Value[], kw: Array<[string, Value]> | null, self: Value): Value {
  unpackPositional('elems', args, kw, 0, 0);
  return bytesView(self as Bytes);
}

registerMethods('bytes', { elems });
