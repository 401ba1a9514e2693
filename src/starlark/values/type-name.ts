import { None, SFloat, type StarlarkObject, type Value } from './value.js';

/** `type(x)`: starlark-go names (`string`, `NoneType`, ...). */
export function typeName(x: Value): string {
  switch (typeof x) {
    case 'string':
      return 'string';
    case 'number':
    case 'bigint':
      return 'int';
    case 'boolean':
      return 'bool';
    default:
      if (x instanceof SFloat) return 'float';
      if (x === None) return 'NoneType';
      return (x as StarlarkObject).typeName;
  }
}
