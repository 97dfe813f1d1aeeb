import fc from 'fast-check';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Manifest } from '../../src/core/index.js';
import { listedFields, listRuns } from '../../src/app/run-listing.js';
import { recordCalcRun, tempDir } from '../helpers/cli-harness.js';

let dir: string;
let cleanup: () => Promise<void>;
beforeEach(async () => ({ dir, cleanup } = await tempDir()));
afterEach(() => cleanup());

/** The paths of the manifest fields `qitos runs` lists. */
const LISTED: string[][] = [
  ['runId'],
  ['status'],
  ['createdAt'],
  ['agent'],
  ['agent', 'name'],
  ['model'],
  ['model', 'id'],
  ['parent'],
  ['summary'],
  ['summary', 'stopReason'],
  ['summary', 'steps'],
  ['summary', 'usage'],
  ['summary', 'usage', 'cost'],
  ['summary', 'usage', 'tokens'],
  ['summary', 'usage', 'modelCalls'],
  ['summary', 'usage', 'tokens', 'input'],
  ['summary', 'usage', 'tokens', 'reasoning'],
  ['summary', 'usage', 'tokens', 'cache'],
  ['summary', 'usage', 'tokens', 'cache', 'write'],
  ['schema'],
  ['version'],
];

function setPath(obj: Record<string, unknown>, path: string[], value: unknown): void {
  let o = obj;
  for (const k of path.slice(0, -1)) {
    if (typeof o[k] !== 'object' || o[k] === null) return;
    o = o[k] as Record<string, unknown>;
  }
  o[path[path.length - 1]] = value;
}

describe('qitos runs: the listing check', () => {
  it('accepts a manifest only when the Manifest schema does: a listed field set to any JSON value (fast-check)', async () => {
    const { traceDir } = await recordCalcRun(dir);
    const text = await readFile(join(traceDir, 'manifest.json'), 'utf8');
    expect(listedFields(text)).toBeDefined();
    fc.assert(
      fc.property(
        fc.constantFrom(...LISTED),
        fc.oneof(fc.jsonValue(), fc.double(), fc.integer({ min: -3, max: 3 })),
        (path, value) => {
          const m = JSON.parse(text) as Record<string, unknown>;
          setPath(m, path, value);
          // Both read the same file: JSON turns a non-finite number into null, for the schema as for the listing.
          const json = JSON.stringify(m);
          const listed = listedFields(json);
          // Never more lenient than the schema (which may accept what this quick check sends to it).
          if (listed) expect(Manifest.safeParse(JSON.parse(json)).success).toBe(true);
        },
      ),
      { numRuns: 1000, examples: [[['parent'], Number.POSITIVE_INFINITY]] },
    );
  });

  it('a manifest the quick check does not take is validated by the schema: listed if it passes, else skipped with its reason', async () => {
    const { traceDir } = await recordCalcRun(dir);
    const m = JSON.parse(await readFile(join(traceDir, 'manifest.json'), 'utf8')) as Record<string, unknown>;
    const write = async (name: string, manifest: unknown) => {
      await mkdir(join(dir, 'traces', name), { recursive: true });
      await writeFile(
        join(dir, 'traces', name, 'manifest.json'),
        typeof manifest === 'string' ? manifest : JSON.stringify(manifest),
      );
    };
    await write('bad-status', { ...m, runId: 'bad-status', status: 'exploded' });
    await write('not-json', '{"schema": "qitos.trace",');
    const { rows, skipped } = await listRuns(join(dir, 'traces'));
    expect(rows.map((r) => r.runId)).toEqual([m.runId]);
    expect(skipped).toEqual([
      expect.stringMatching(/^corrupt trace: manifest\.json in .*bad-status: status: Invalid option/),
      expect.stringMatching(/^corrupt trace: manifest\.json in .*not-json is not JSON/),
    ]);
  });
});
