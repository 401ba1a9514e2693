/**
 * Float text in starlark-go's style: Go's `strconv.FormatFloat` semantics, which differ from
 * JS `Number#toString` in exponent layout (`1e+06`, two-digit minimum) and thresholds.
 */

function nonFinite(f: number): string {
  if (f !== f) return 'nan';
  return f > 0 ? '+inf' : '-inf';
}

/** Two-digit minimum exponent with explicit sign, as Go prints it. */
function goExponent(exp: number): string {
  const sign = exp < 0 ? '-' : '+';
  const a = Math.abs(exp);
  return sign + (a < 10 ? '0' + a : String(a));
}

/** Shortest round-trip digits and decimal exponent of a finite positive number. */
function shortestDigits(f: number): { digits: string; exp: number } {
  const s = f.toExponential();
  const e = s.indexOf('e');
  return { digits: s.slice(0, e).replace('.', ''), exp: Number(s.slice(e + 1)) };
}

/** `%g` with shortest precision (the format of `str(float)`), always showing it is a float. */
export function formatFloatShortest(f: number): string {
  if (!Number.isFinite(f)) return nonFinite(f);
  if (f === 0) return Object.is(f, -0) ? '-0.0' : '0.0';
  const neg = f < 0;
  const { digits, exp } = shortestDigits(Math.abs(f));
  let out: string;
  // Go's shortest %g switches to exponent form at a fixed precision of 6.
  if (exp < -4 || exp >= 6) {
    out = formatE(digits, exp);
  } else if (exp < 0) {
    out = '0.' + '0'.repeat(-exp - 1) + digits;
  } else if (digits.length > exp + 1) {
    out = digits.slice(0, exp + 1) + '.' + digits.slice(exp + 1);
  } else {
    out = digits + '0'.repeat(exp + 1 - digits.length) + '.0';
  }
  return neg ? '-' + out : out;
}

function formatE(digits: string, exp: number): string {
  const mant = digits.length > 1 ? digits[0] + '.' + digits.slice(1) : digits;
  return mant + 'e' + goExponent(exp);
}

/** `%e` with the given precision. */
export function formatFloatE(f: number, prec = 6, upper = false): string {
  if (!Number.isFinite(f)) return nonFinite(f);
  const s = Math.abs(f).toExponential(prec);
  const e = s.indexOf('e');
  const out = s.slice(0, e) + 'e' + goExponent(Number(s.slice(e + 1)));
  const signed = f < 0 || Object.is(f, -0) ? '-' + out : out;
  return upper ? signed.toUpperCase() : signed;
}

/** `%f` with the given precision, exact for magnitudes where `toFixed` gives up. */
export function formatFloatF(f: number, prec = 6): string {
  if (!Number.isFinite(f)) return nonFinite(f);
  const a = Math.abs(f);
  let out: string;
  if (a < 1e21) out = a.toFixed(prec);
  else out = BigInt(a).toString() + (prec > 0 ? '.' + '0'.repeat(prec) : '');
  return f < 0 || Object.is(f, -0) ? '-' + out : out;
}
