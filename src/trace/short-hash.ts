import * as crypto from 'node:crypto';

// The one-shot `crypto.hash` (Node >= 20.12) costs less than half of `createHash` for short texts, and a run
// hashes a dozen of them (messages, system prompt, tools, params, manifest); older Node falls back.
const oneShot = (crypto as { hash?: (algorithm: string, data: string, encoding: 'hex') => string }).hash;

/** A short (16 hex chars) content hash used in traces and replay drift checks: the first 16 hex digits of its SHA-256. */
export function shortHash(text: string): string {
  return (oneShot ? oneShot('sha256', text, 'hex') : crypto.createHash('sha256').update(text).digest('hex')).slice(
    0,
    16,
  );
}
