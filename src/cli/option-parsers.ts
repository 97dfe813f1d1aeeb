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
