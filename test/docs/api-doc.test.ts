import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { packageEntries, REPO } from '../helpers/package-exports.js';

/**
 * docs/api.md and the README list the package's entry points; package.json `exports` is the truth. A subpath added
 * to `exports` without a line in both fails here, with the line to add.
 */
const entries = packageEntries();
const apiDoc = readFileSync(join(REPO, 'docs/api.md'), 'utf8');
const readme = readFileSync(join(REPO, 'README.md'), 'utf8');

/** The rows of docs/api.md's entry-point table: specifier -> the source it names. */
function apiRows(text: string): Map<string, string> {
  const rows = new Map<string, string>();
  for (const m of text.matchAll(/^\| `(qitos-ts(?:\/[a-z][a-z-]*)?)` \|.*\| `([^`]+)` \|$/gm)) rows.set(m[1]!, m[2]!);
  return rows;
}

/** The subpaths the README's sentence "... have their own entry points: `qitos-ts/models`, `/parsers`, ... (" names. */
function readmeSubpaths(text: string): string[] {
  const start = text.indexOf('have their own entry points:');
  if (start < 0) return [];
  const list = text.slice(start, text.indexOf('(', start));
  return [...list.matchAll(/`(?:qitos-ts)?(\/[a-z][a-z-]*)`/g)].map((m) => `qitos-ts${m[1]}`);
}

describe('docs/api.md and the README list every entry point of package.json exports', () => {
  it('docs/api.md has one row per entry point, naming the source it is built from, and no row for a subpath that does not exist', () => {
    const rows = apiRows(apiDoc);
    const missing = entries
      .filter((e) => !rows.has(e.specifier))
      .map(
        (e) =>
          `docs/api.md has no row for ${e.specifier} (package.json exports "${e.key}"): add | ` +
          `\`${e.specifier}\` | <what it holds> | \`${relative(REPO, e.source)}\` |`,
      );
    const stale = [...rows.keys()]
      .filter((s) => !entries.some((e) => e.specifier === s))
      .map((s) => `docs/api.md has a row for ${s}, which package.json exports does not declare`);
    const wrongSource = entries
      .filter((e) => rows.has(e.specifier) && rows.get(e.specifier) !== relative(REPO, e.source))
      .map(
        (e) =>
          `docs/api.md says ${e.specifier} is built from ${rows.get(e.specifier)}, package.json maps it to ${relative(REPO, e.source)}`,
      );
    expect([...missing, ...stale, ...wrongSource]).toEqual([]);
  });

  it("the README's list of entry points names every subpath", () => {
    const listed = readmeSubpaths(readme);
    expect(
      listed.length,
      'README.md: the sentence "... have their own entry points: `qitos-ts/models`, `/parsers`, ... (" is gone',
    ).toBeGreaterThan(0);
    const subpaths = entries.filter((e) => e.key !== '.').map((e) => e.specifier);
    const missing = subpaths
      .filter((s) => !listed.includes(s))
      .map((s) => `README.md's list of entry points lacks \`/${s.slice('qitos-ts/'.length)}\``);
    const stale = listed
      .filter((s) => !subpaths.includes(s))
      .map((s) => `README.md lists ${s}, which package.json exports does not declare`);
    expect([...missing, ...stale]).toEqual([]);
  });

  it('the checks find what is missing (a fabricated table and README sentence)', () => {
    expect([
      ...apiRows(
        '| `qitos-ts/models` | models | `src/models/index.ts` |\n| `qitos-ts/x-y` | x | `src/x/index.ts` |\n',
      ).keys(),
    ]).toEqual(['qitos-ts/models', 'qitos-ts/x-y']);
    expect(
      readmeSubpaths(
        'the batteries have their own entry points: `qitos-ts/models`, `/parsers` and `/tau-bench` ([docs](x)).',
      ),
    ).toEqual(['qitos-ts/models', 'qitos-ts/parsers', 'qitos-ts/tau-bench']);
  });
});
