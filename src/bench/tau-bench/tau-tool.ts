import type { PyValue } from './py/py-value.js';
import type { TauData } from './tau-database.js';

/**
 * A tool's behaviour: the original's `invoke(data, **kwargs)` re-written in TypeScript. `params` are its parameter
 * names after `data`, in order (for Python's argument binding and its errors); `run` gets the bound values and
 * returns what `invoke` returns (a str, or None where the original falls off its end).
 */
export interface TauToolImpl {
  name: string;
  params: readonly string[];
  run(data: TauData, args: PyValue[]): PyValue;
}
