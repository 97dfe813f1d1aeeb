import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = resolve(__dirname, '../..');
const doc = readFileSync(resolve(root, 'docs/security.md'), 'utf8');

/** Every `file` › "title" reference; a bare › "title" refers to the last file named before it. */
function references(): Array<{ file: string; title: string }> {
  const out: Array<{ file: string; title: string }> = [];
  let file = '';
  for (const m of doc.matchAll(/`(test\/[^`]+\.ts)`|› "((?:[^"\\]|\\.)+)"/g)) {
    if (m[1]) file = m[1];
    else if (!file) throw new Error(`security.md: › "${m[2]}" comes before any test file`);
    else out.push({ file, title: m[2].replace(/\\"/g, '"').replace(/\s+/g, ' ') });
  }
  return out;
}

describe('docs/security.md', () => {
  it('names tests that exist: each quoted piece of a title is in the named test file', () => {
    const refs = references();
    expect(refs.length).toBeGreaterThan(30);
    for (const { file, title } of refs) {
      expect(existsSync(resolve(root, file)), file).toBe(true);
      // Titles split over lines as string concatenations ('a ' +\n 'b') read as one.
      const source = readFileSync(resolve(root, file), 'utf8')
        .replace(/['"`] \+\n\s*['"`]/g, '')
        .replace(/\\'/g, "'");
      expect(source.includes(title), `${file} › "${title}"`).toBe(true);
    }
  });
});
