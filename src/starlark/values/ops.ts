/** The operations the evaluator and library apply to values (one import point). */
export * from './arith.js';
export * from './binary.js';
export * from './contains.js';
export * from './sequence.js';
export * from './attrs.js';
export * from './spell.js';
export * from './unpack.js';
export * from './convert.js';
export * from './set-ops.js';
export * from './percent-format.js';
export { hashValue as hash } from './hash.js';
export { freezeValue as freeze } from './freeze.js';
