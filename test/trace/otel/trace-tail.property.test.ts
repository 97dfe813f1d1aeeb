import { appendFileSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { TraceTail, type TailedFile } from '../../../src/trace/otel/trace-tail.js';

const root = mkdtempSync(join(tmpdir(), 'qitos-tail-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

// A line: any text without a newline, multi-byte characters included (a chunk may end inside one).
const line = fc.string({ unit: 'grapheme', maxLength: 40 }).map((s) => s.replace(/\n/g, ' '));

describe('TraceTail', () => {
  it('hands over every complete line of both files once, in order, however the appends are cut', () => {
    let n = 0;
    fc.assert(
      fc.property(
        fc.array(line, { maxLength: 30 }),
        fc.array(line, { maxLength: 30 }),
        fc.array(fc.nat({ max: 200 }), { minLength: 1, maxLength: 20 }),
        (events, steps, cuts) => {
          const dir = join(root, String(n++));
          const tail = new TraceTail(dir);
          const seen: Record<TailedFile, string[]> = { 'events.jsonl': [], 'steps.jsonl': [] };
          const read = () => tail.read((file, l) => seen[file].push(l));
          read(); // the folder and its files do not exist yet: nothing, no error
          const bytes = {
            'events.jsonl': Buffer.from(events.map((l) => l + '\n').join('')),
            'steps.jsonl': Buffer.from(steps.map((l) => l + '\n').join('')),
          };
          const at = { 'events.jsonl': 0, 'steps.jsonl': 0 };
          mkdirSync(dir);
          for (const cut of [...cuts, Infinity]) {
            for (const file of ['events.jsonl', 'steps.jsonl'] as const) {
              const end = Math.min(bytes[file].length, at[file] + (cut === Infinity ? Infinity : cut));
              appendFileSync(join(dir, file), bytes[file].subarray(at[file], end));
              at[file] = end;
            }
            read();
          }
          tail.close();
          // an empty line is not a record: the writer never writes one
          expect(seen['events.jsonl']).toEqual(events.filter(Boolean));
          expect(seen['steps.jsonl']).toEqual(steps.filter(Boolean));
        },
      ),
    );
  });
});
