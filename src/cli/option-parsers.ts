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
  return Object.defineProperty({ ...previous }, key, {
    value: value.slice(eq + 1),
    enumerable: true,
    writable: true,
    configurable: true,
  });
}

/** commander collector of a repeatable option (`--set a=1 --set b=2`) into a list. */
export function repeatable(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

/** The help text of `--set`, shared by the commands that take it. */
export const SET_HELP =
  'set a config field by its dotted path, over the file and the other flags (repeatable), ' +
  'e.g. --set engine.maxSteps=10 --set agent.temperature=0.7 --set model=openai:gpt-4o-mini';

/** commander collector of `--var key=value` (a string) and `--var key:=<json>` (any JSON value) into an object. */
export function varArg(value: string, previous: Record<string, unknown>): Record<string, unknown> {
  const eq = value.indexOf('=');
  if (eq <= 0 || (eq === 1 && value[0] === ':'))
    throw new InvalidArgumentError(`expected key=value or key:=<json>, got "${value}"`);
  const json = value[eq - 1] === ':';
  const key = value.slice(0, json ? eq - 1 : eq);
  let parsed: unknown = value.slice(eq + 1);
  if (json) {
    try {
      parsed = JSON.parse(parsed as string);
    } catch (err) {
      throw new InvalidArgumentError(`${key}:= needs a JSON value: ${(err as Error).message}`);
    }
  }
  return Object.defineProperty({ ...previous }, key, {
    value: parsed,
    enumerable: true,
    writable: true,
    configurable: true,
  });
}
