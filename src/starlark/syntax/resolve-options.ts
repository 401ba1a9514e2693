/**
 * What the resolver is told from outside: the dialect it accepts and the names the environment
 * predeclares. Its own module so the resolver's two halves (`resolver.ts` walks the tree,
 * `resolve-scopes.ts` binds names) both read it without importing each other.
 */

export interface DialectOptions {
  set?: boolean;
  while?: boolean;
  toplevelcontrol?: boolean;
  globalreassign?: boolean;
  loadbindsglobally?: boolean;
  recursion?: boolean;
}

export interface ResolveEnv {
  isPredeclared(name: string): boolean;
  isUniversal(name: string): boolean;
  /** Names offered as spelling hints besides the file's own. */
  names(): Iterable<string>;
}
