import { createHmac, timingSafeEqual } from 'node:crypto';
import { canonicalJson } from '../core/index.js';

/**
 * HMAC-SHA256 (hex) of a manifest under a key: over the canonical JSON of the manifest as it reads back from disk,
 * without its `signature` field. Key order, whitespace and `undefined` fields do not change it; any other edit does.
 */
export function manifestSignature(manifest: object, key: Uint8Array): string {
  const { signature: _signature, ...body } = JSON.parse(JSON.stringify(manifest)) as Record<string, unknown>;
  return createHmac('sha256', key).update(canonicalJson(body)).digest('hex');
}

/**
 * Whether a manifest (as parsed from manifest.json, before validation) carries a valid signature under `key`:
 * `signed` when it does, `unsigned` when it has none, `mismatch` when it has one this key did not make
 * (written on another machine, with another key, or edited since).
 */
export function checkManifestSignature(raw: unknown, key: Uint8Array): 'signed' | 'unsigned' | 'mismatch' {
  const sig = raw && typeof raw === 'object' ? (raw as { signature?: unknown }).signature : undefined;
  if (typeof sig !== 'string') return 'unsigned';
  const expected = Buffer.from(manifestSignature(raw as object, key), 'hex');
  const given = Buffer.from(sig, 'hex');
  return given.length === expected.length && timingSafeEqual(given, expected) ? 'signed' : 'mismatch';
}
