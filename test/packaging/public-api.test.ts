import { readdirSync, readFileSync, existsSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { packageEntries, REPO } from '../helpers/package-exports.js';
import {
  apiReports,
  entryDeclarations,
  REPORT_COMMAND,
  reportDifferences,
  type EntryDeclarations,
} from './api-report.js';
import { publicApi } from './public-api.js';

const entries = packageEntries();
/** Every entry point's declarations, from one declaration emit shared by the tests below (it takes seconds). */
let surface: EntryDeclarations[] | undefined;
const declarations = () => (surface ??= entryDeclarations(entries));

describe('the public API (package.json exports)', () => {
  it('every entry point is an index.ts compiled to dist/, with its types listed first', () => {
    const pkg = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as { exports: Record<string, unknown> };
    expect(pkg.exports['./package.json']).toBe('./package.json');
    for (const e of entries) {
      expect(e.key === '.' || /^\.\/[a-z][a-z-]*$/.test(e.key), e.key).toBe(true);
      expect(Object.keys(pkg.exports[e.key] as object), e.key).toEqual(['types', 'default']);
      expect(e.default, e.key).toMatch(/^\.\/dist\/(.+\/)?index\.js$/);
      expect(e.types, e.key).toBe(e.default.replace(/\.js$/, '.d.ts'));
      expect(existsSync(e.source), `${e.key}: ${relative(REPO, e.source)}`).toBe(true);
    }
  });

  it('each entry point imports core/zod-version.js before anything else (zod 3 fails there, with the fix)', () => {
    for (const e of entries) {
      const body = readFileSync(e.source, 'utf8')
        .replace(/^\/\*\*[\s\S]*?\*\/\n/, '')
        .trimStart();
      const first = /^import\s+['"]([^'"]+)['"];/.exec(body);
      expect(first && join(dirname(e.source), first[1]), e.key).toBe(join(REPO, 'src/core/zod-version.js'));
    }
  });

  it(`each entry point exports exactly its pinned list (test/packaging/public-api.json; update with ${REPORT_COMMAND})`, async () => {
    const api = await publicApi(declarations(), async (e) => Object.keys(await import(e.source)));
    await expect(JSON.stringify(api, null, 2) + '\n').toMatchFileSnapshot('./public-api.json');
  }, 600_000); // the TypeScript declaration emit over every entry point's sources: CPU-bound, ~20 s on a quiet machine

  it(`each entry point's API report (api/<entry>.api.md) is what its declarations give (accept a change: ${REPORT_COMMAND})`, () => {
    const changed = reportDifferences(apiReports(declarations()));
    const shown = changed.map((patch) => {
      const lines = patch.split('\n');
      return lines.length > 120 ? [...lines.slice(0, 120), `... ${lines.length - 120} more lines`].join('\n') : patch;
    });
    expect(
      changed.length,
      `${shown.join('\n')}\nThe API report differs from the sources (above: checked in -> from the sources). ` +
        `If the change to the public API is meant, run \`${REPORT_COMMAND}\` and commit api/.`,
    ).toBe(0);
  }, 600_000);

  it('docs/api.md "Stability" lists exactly the experimental and deprecated exports of each entry point', () => {
    const doc = readFileSync(join(REPO, 'docs/api.md'), 'utf8');
    const section = /^## Stability\n([\s\S]*?)(?=^## |(?![\s\S]))/m.exec(doc)?.[1];
    expect(section, 'docs/api.md has a "## Stability" section').toBeDefined();
    const listed = new Set<string>();
    for (const row of section!.matchAll(/^\| `(qitos-ts[^`]*)` \| (experimental|deprecated) \| ([^|]+) \|/gm))
      for (const name of row[3]!.matchAll(/`([^`]+)`/g)) listed.add(`${row[1]} ${row[2]} ${name[1]}`);
    const tagged = new Set<string>();
    for (const { entry, exports } of declarations())
      for (const e of exports) for (const s of e.stability) tagged.add(`${entry.specifier} ${s.tag} ${e.name}`);
    expect({ missingFromDoc: [...tagged].filter((t) => !listed.has(t)).sort() }).toEqual({ missingFromDoc: [] });
    expect({ notTagged: [...listed].filter((t) => !tagged.has(t)).sort() }).toEqual({ notTagged: [] });
  }, 600_000);

  it('a deprecated export names its new home, which exports the same declaration, not deprecated', () => {
    const byEntry = new Map(declarations().map((d) => [d.entry.specifier, d]));
    const bad: string[] = [];
    for (const { entry, exports } of declarations())
      for (const e of exports)
        for (const s of e.stability.filter((t) => t.tag === 'deprecated')) {
          const home = /`(qitos-ts(?:\/[a-z-]+)?)`/.exec(s.text)?.[1];
          const there = home === undefined ? undefined : byEntry.get(home)?.exports.find((x) => x.name === e.name);
          if (!there) bad.push(`${entry.specifier} ${e.name}: ${home ?? 'no home named'} does not export it`);
          else if (there.stability.some((t) => t.tag === 'deprecated')) bad.push(`${home} ${e.name}: deprecated too`);
          else if (there.declarations.join('\n') !== e.declarations.join('\n'))
            bad.push(`${entry.specifier} ${e.name}: declared differently in ${home}`);
        }
    expect(bad).toEqual([]);
  }, 600_000);

  it("the root stays a kernel: at most 100 runtime names, none of the kernel's own helpers", () => {
    const api = JSON.parse(readFileSync(join(__dirname, 'public-api.json'), 'utf8')) as Record<
      string,
      { values: string[] }
    >;
    const root = api['qitos-ts']!.values;
    expect(root.length, `qitos-ts exports ${root.length} runtime names`).toBeLessThanOrEqual(100);
    const internal = [
      'pendingOf',
      'base64Size',
      'nestsDeeperThan',
      'bugStack',
      'settingText',
      'flattenSettings',
      'zodIssueField',
      'decisionSignature',
      'borrowEnv',
      'canonicalJson',
    ];
    expect(root.filter((n) => internal.includes(n))).toEqual([]);
    const benchInternal = ['appendResult', 'readResults', 'pairKey', 'getPath', 'taskHash'];
    expect(api['qitos-ts/bench']!.values.filter((n) => benchInternal.includes(n))).toEqual([]);
  });

  it('every import from qitos-ts in the README and docs/ names an export of that entry point', () => {
    const api = JSON.parse(readFileSync(join(__dirname, 'public-api.json'), 'utf8')) as Record<
      string,
      { values: string[]; types: string[] }
    >;
    const docs = [
      'README.md',
      ...readdirSync(join(REPO, 'docs'))
        .filter((f) => f.endsWith('.md'))
        .map((f) => `docs/${f}`),
    ];
    const bad: string[] = [];
    let seen = 0;
    for (const doc of docs) {
      for (const m of readFileSync(join(REPO, doc), 'utf8').matchAll(
        /^import (?:type )?\{([^}]*)\} from '(qitos-ts[^']*)';/gm,
      )) {
        const entry = api[m[2]];
        for (const name of m[1]
          .split(',')
          .map(
            (n) =>
              n
                .trim()
                .replace(/^type /, '')
                .split(' as ')[0],
          )
          .filter(Boolean)) {
          seen++;
          if (!entry || !(entry.values.includes(name) || entry.types.includes(name)))
            bad.push(`${doc}: ${name} from '${m[2]}'`);
        }
      }
    }
    expect(seen).toBeGreaterThan(20);
    expect(bad).toEqual([]);
  });

  it('the repository runs on its sources: no test, example, benchmark or script imports dist/ or qitos-ts by name', () => {
    const files = ['test', 'examples', 'benchmarks', 'scripts', 'src']
      .flatMap((d) => walk(join(REPO, d)))
      .filter((f) => !f.includes('/test/packaging/consumer/'));
    const bad: string[] = [];
    for (const file of files) {
      const text = readFileSync(file, 'utf8');
      for (const m of text.matchAll(
        /^\s*(?:import|export)\b[^'"]*?from\s+['"]([^'"]+)['"]|\bimport\(\s*['"]([^'"]+)['"]\s*\)/gm,
      )) {
        const spec = m[1] ?? m[2];
        if (/^qitos-ts(\/|$)/.test(spec) || /(^|\/)dist\//.test(spec)) bad.push(`${relative(REPO, file)}: ${spec}`);
      }
    }
    expect(bad).toEqual([]);
  });
});

function walk(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((f) => {
    const p = join(dir, f);
    if (f === 'node_modules' || f === 'fixtures') return [];
    return statSync(p).isDirectory() ? walk(p) : /\.(ts|mts|js|mjs|cjs)$/.test(f) ? [p] : [];
  });
}
