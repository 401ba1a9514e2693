import type * as A from './ast.js';
import type { FunctionScope } from './binding.js';
import type { ScopeResolver } from './resolve-scopes.js';

/** The two resolver operations the checks need: reporting an error and binding a name. */
type ResolverApi = Pick<ScopeResolver, 'error' | 'bind'>;

/**
 * Validates a parameter list and binds the parameters in frame order: ordinary and
 * keyword-only parameters first, then `*args`, then `**kwargs`, so the slots have no hole.
 */
export function checkParams(r: ResolverApi, params: A.Param[], fn: FunctionScope): void {
  let seenOptional = false;
  let star: A.Param | null = null;
  let starStar: A.Param | null = null;
  let kwonly = 0;
  let plain = 0;
  for (const p of params) {
    switch (p.kind) {
      case 'plain':
      case 'default':
        if (starStar !== null) {
          r.error(
            p,
            `${p.kind === 'plain' ? 'required' : 'optional'} parameter may not follow **${starStar.name?.name ?? ''}`,
          );
        } else if (star !== null) {
          kwonly++;
        } else if (p.kind === 'plain' && seenOptional) {
          r.error(p, 'required parameter may not follow optional');
        }
        if (p.kind === 'default') seenOptional = true;
        if (p.name !== null && r.bind(p.name))
          r.error(p.name, `duplicate parameter: ${p.name.name}`);
        plain++;
        break;
      case 'star':
        if (starStar !== null)
          r.error(p, `* parameter may not follow **${starStar.name?.name ?? ''}`);
        else if (star !== null) r.error(p, 'multiple * parameters not allowed');
        else star = p;
        break;
      case 'starstar':
        if (starStar !== null) r.error(p, 'multiple ** parameters not allowed');
        starStar = p;
        break;
    }
  }
  fn.numParams = plain;
  fn.numKwonly = kwonly;
  if (star !== null) {
    if (star.name !== null) {
      if (r.bind(star.name)) r.error(star.name, `duplicate parameter: ${star.name.name}`);
      fn.hasVarargs = true;
    } else if (kwonly === 0) {
      r.error(star, 'bare * must be followed by keyword-only parameters');
    }
  }
  if (starStar !== null && starStar.name !== null) {
    if (r.bind(starStar.name)) r.error(starStar.name, `duplicate parameter: ${starStar.name.name}`);
    fn.hasKwargs = true;
  }
}

/** Argument order rules of a call: positional, named, `*args`, `**kwargs`. */
export function checkCallArgs(r: ResolverApi, args: A.Arg[]): void {
  let seenVarargs = false;
  let seenKwargs = false;
  const names = new Set<string>();
  for (const a of args) {
    switch (a.kind) {
      case 'starstar':
        if (seenKwargs) r.error(a, 'multiple **kwargs not allowed');
        seenKwargs = true;
        break;
      case 'star':
        if (seenKwargs) r.error(a, '*args may not follow **kwargs');
        else if (seenVarargs) r.error(a, 'multiple *args not allowed');
        seenVarargs = true;
        break;
      case 'named':
        if (seenKwargs) r.error(a, 'keyword argument may not follow **kwargs');
        else if (seenVarargs) r.error(a, 'keyword argument may not follow *args');
        if (names.has(a.name ?? '')) r.error(a, `keyword argument "${a.name ?? ''}" is repeated`);
        names.add(a.name ?? '');
        break;
      case 'pos':
        if (seenVarargs) r.error(a, 'positional argument may not follow *args');
        else if (seenKwargs) r.error(a, 'positional argument may not follow **kwargs');
        else if (names.size > 0) r.error(a, 'positional argument may not follow named');
        break;
    }
  }
}
