/** The Starlark standard library: universe builtins, type methods and the json/math modules. */
export { universe, createUniverse, type UniverseOptions } from './universe.js';
export { updateDict } from './builtins-convert.js';
export { parseIntLiteral, parseFloatLiteral } from './int-parse.js';
export { iterableArg, iterableParam } from './args.js';
export { replaceIn } from './str-replace.js';
export { encodeJSON, jsonModule } from './json.js';
export { mathModule } from './math.js';
