let counter = 0;
const session = Math.random().toString(36).slice(2, 8);

/** A unique, sortable-within-process id with a prefix, e.g. `msg_k3x9a1_1`. No I/O, no global registry. */
export function newId(prefix: string): string {
  counter += 1;
  return `${prefix}_${session}${counter.toString(36)}`;
}
