import { InvalidArgumentError } from 'commander';

/** commander parser of a positive integer option value. */
export function positiveInt(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n <= 0) throw new InvalidArgumentError(`expected a positive integer, got "${value}"`);
  return n;
}

/** commander parser of a non-negative integer option value. */
export function nonNegativeInt(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new InvalidArgumentError(`expected a non-negative integer, got "${value}"`);
  return n;
}

/** commander collector of `--arg key=value` (repeatable) into an object. */
export function promptArg(value: string, previous: Record<string, string>): Record<string, string> {
  const eq = value.indexOf('=');
  if (eq <= 0) throw new InvalidArgumentError(`expected key=value, got "${value}"`);
  const key = value.slice(0, eq);
  return Object.defineProperty({ ...previous }, key, { value: value.slice(eq + 1), enumerable: true, writable: true, configurable: true });
}
