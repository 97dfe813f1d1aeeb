import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO } from '../helpers/package-exports.js';

/** README.md and docs/ ship in the package: they speak to its users, and point only at what those users can open. */
const shipped = [
  'README.md',
  ...readdirSync(join(REPO, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];
const INTERNAL = /issue #\d+|\bseeds?\/|\bseed `?\d{3}`?|\bseed \d+\.\d+|ApexBridge/g;

describe('the shipped docs', () => {
  it('carry no notes meant for the developers (issue numbers, requirement seeds, the systems the design came from)', () => {
    const found = shipped.flatMap((f) =>
      [...readFileSync(join(REPO, f), 'utf8').matchAll(INTERNAL)].map((m) => `${f}: ${m[0]}`),
    );
    expect(found).toEqual([]);
    expect('as issue #16 says, after seed `001` and seed 10.2 (ApexBridge)'.match(INTERNAL)).toEqual([
      'issue #16',
      'seed `001`',
      'seed 10.2',
      'ApexBridge',
    ]);
  });

  it('a page that points at examples/ or benchmarks/ says they are in the source repository, not in the package', () => {
    const bad = shipped.filter((f) => {
      const text = readFileSync(join(REPO, f), 'utf8');
      return (
        /`(?:npx qitos [^`]*)?(examples|benchmarks)\/|\b(examples|benchmarks)\/[\w-]+/.test(text) &&
        !text.includes('folders of the qitos-ts source repository')
      );
    });
    expect(bad).toEqual([]);
  });
});
