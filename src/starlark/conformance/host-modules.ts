import type { Value } from '../index.js';
import { jsonModule, mathModule } from '../lib/index.js';

/** Library modules the go tests load by file name (`load("json.star", "json")`). */
let cached: ReadonlyMap<string, Value> | null = null;

export function hostModules(): ReadonlyMap<string, Value> {
  return (cached ??= new Map<string, Value>([
    ['json.star', jsonModule()],
    ['math.star', mathModule()],
  ]));
}
