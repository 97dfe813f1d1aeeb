const view = new DataView(new ArrayBuffer(8));

/** A finite double as mantissa * 2^exponent, exactly. */
function decompose(x: number): { mant: bigint; exp: number } {
  view.setFloat64(0, x);
  const hi = view.getUint32(0);
  const lo = view.getUint32(4);
  const biased = (hi >>> 20) & 0x7ff;
  let mant = (BigInt(hi & 0xfffff) << 32n) | BigInt(lo);
  if (biased === 0) return { mant, exp: -1074 };
  mant |= 1n << 52n;
  return { mant, exp: biased - 1075 };
}

/**
 * CPython's `round(x, ndigits)` for a float: the exact binary value rounded to `ndigits` decimals with ties to
 * even (`round(0.125, 2) == 0.12`, `round(2.675, 2) == 2.67`), then the nearest double to that decimal. Keeps the
 * sign of zero and returns infinities and NaN unchanged, as CPython does.
 */
export function pyRoundFloat(x: number, ndigits: number): number {
  if (!Number.isFinite(x) || x === 0) return x;
  const neg = x < 0;
  const { mant, exp } = decompose(Math.abs(x));
  let num = mant;
  let den = 1n;
  if (exp >= 0) num <<= BigInt(exp);
  else den <<= BigInt(-exp);
  if (ndigits >= 0) num *= 10n ** BigInt(ndigits);
  else den *= 10n ** BigInt(-ndigits);
  let q = num / den;
  const twice = (num % den) * 2n;
  if (twice > den || (twice === den && (q & 1n) === 1n)) q += 1n;
  const r = q === 0n ? 0 : Number(`${q}e${-ndigits}`);
  return neg ? -r : r;
}
