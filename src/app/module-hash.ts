import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';

/**
 * The sha-256 (hex) of a module file's content, recorded with a run so an edited agent is told apart from the
 * one a run used. Only the file itself is hashed, not what it imports.
 */
export async function moduleSha256(absPath: string): Promise<string> {
  return createHash('sha256')
    .update(await readFile(absPath))
    .digest('hex');
}
