import { createHash } from 'node:crypto';

/** A short (16 hex chars) content hash used in traces and replay drift checks. */
export function shortHash(text: string): string {
  return createHash('sha256').update(text).digest('hex').slice(0, 16);
}
