/**
 * How deeply JSON arrays and objects may nest in what qitos reads from outside (trace lines, tool-call arguments,
 * parsed decisions). Far beyond real arguments or state, far below what overflows the stack in the recursive code
 * that handles values later (JSON.stringify, structuredClone, canonicalJson, the viewer).
 */
export const MAX_JSON_DEPTH = 512;

/**
 * Whether `value` nests arrays and objects more than `limit` levels deep (a scalar is depth 0, `[]` depth 1).
 * Iterative, so it answers for any depth without using the stack; it stops at the first path past the limit.
 */
export function nestsDeeperThan(value: unknown, limit: number = MAX_JSON_DEPTH): boolean {
  const stack: Array<[unknown, number]> = [[value, 0]];
  while (stack.length) {
    const [v, d] = stack.pop()!;
    if (v === null || typeof v !== 'object') continue;
    if (d + 1 > limit) return true;
    for (const child of Array.isArray(v) ? v : Object.values(v))
      if (child !== null && typeof child === 'object') stack.push([child, d + 1]);
  }
  return false;
}
