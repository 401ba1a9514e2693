/** A static (scan, parse or resolve) error, carrying the position it is reported at. */
export class StarlarkSyntaxError extends Error {
  constructor(
    readonly file: string,
    readonly line: number,
    readonly col: number,
    /** The message without the `file:line:col:` prefix. */
    readonly bare: string,
  ) {
    super(`${file}:${line}:${col}: ${bare}`);
    this.name = 'StarlarkSyntaxError';
  }
}

/** Thrown by `resolve` and `execModule` when static checks fail; holds every error found. */
export class StarlarkStaticErrors extends Error {
  constructor(readonly errors: StarlarkSyntaxError[]) {
    super(errors.map((e) => e.message).join('\n'));
    this.name = 'StarlarkStaticErrors';
  }
}
