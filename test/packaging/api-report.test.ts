import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { packageEntries } from '../helpers/package-exports.js';
import { apiReports, entryDeclarations, renderReport, reportDifferences, writeReports } from './api-report.js';

/**
 * The API report generator on a small package of its own: what a report shows of each kind of export, where
 * stability tags are read from, and what it refuses.
 */
/** Each test compiles a package: CPU-bound, a few seconds on a quiet machine, far more on a loaded one. */
const COMPILE_MS = 120_000;
let root: string | undefined;
afterEach(() => {
  if (root) rmSync(root, { recursive: true, force: true });
  root = undefined;
});

/** A package `demo`, entry points `.` (src/index.ts) and `./extra` (src/extra/index.ts), with the given sources. */
function fixture(files: Record<string, string>): string {
  root = mkdtempSync(join(tmpdir(), 'qitos-api-report-'));
  const write = (path: string, text: string) => {
    mkdirSync(dirname(join(root!, path)), { recursive: true });
    writeFileSync(join(root!, path), text);
  };
  write(
    'package.json',
    JSON.stringify({
      name: 'demo',
      type: 'module',
      exports: {
        '.': { types: './dist/index.d.ts', default: './dist/index.js' },
        './extra': { types: './dist/extra/index.d.ts', default: './dist/extra/index.js' },
      },
    }),
  );
  write(
    'tsconfig.json',
    JSON.stringify({
      compilerOptions: {
        target: 'ES2022',
        module: 'NodeNext',
        moduleResolution: 'NodeNext',
        strict: true,
        skipLibCheck: true,
        noEmit: true,
        lib: ['ES2022'],
        types: [],
      },
    }),
  );
  write(
    'tsconfig.build.json',
    JSON.stringify({
      extends: './tsconfig.json',
      compilerOptions: { noEmit: false, rootDir: 'src', outDir: 'dist', declaration: true, sourceMap: true },
      include: ['src'],
    }),
  );
  write('src/extra/index.ts', 'export const moved = 1;\n');
  for (const [path, text] of Object.entries(files)) write(path, text);
  return root;
}

const report = (dir: string, specifier = 'demo') =>
  renderReport(entryDeclarations(packageEntries(dir), dir).find((d) => d.entry.specifier === specifier)!);

/** The TypeScript block of a report. */
const block = (text: string) => /```ts\n([\s\S]*)```/.exec(text)![1];

describe('the API report (test/packaging/api-report.ts)', () => {
  it(
    'prints each export as the .d.ts declares it, in name order, without comments, with its stability tags',
    () => {
      const dir = fixture({
        'src/index.ts': [
          '/** A point. This comment is not part of the report. */',
          'export const Point = { x: 0, y: 0 };',
          'export type Point = typeof Point;',
          'export function add(a: number, b: number): number;',
          'export function add(a: string, b: string): string;',
          'export function add(a: number & string, b: number & string) {',
          '  return a + b;',
          '}',
          '/** @experimental Not settled. */',
          'export interface Knob {',
          '  /** Turns it. */',
          '  turn(): void;',
          '}',
          "export { helper as renamed } from './helper.js';",
          '/** @experimental Grouped. */',
          "export { one, two } from './group.js';",
          'export {',
          '  /** @deprecated Import it from `demo/extra`. */',
          '  moved,',
          "} from './extra/index.js';",
          "export type { Schema } from './schema.js';",
          "export * as ns from './ns.js';",
          '',
        ].join('\n'),
        'src/helper.ts': 'export const helper = (s: string) => s.length;\n',
        'src/group.ts': 'export const one = 1;\nexport let two: string | undefined;\n',
        'src/schema.ts': "export const Schema = 'schema';\nexport type Schema = { name: typeof Schema };\n",
        'src/ns.ts': 'export function b(): void {}\nexport const a = true;\n',
      });
      const text = report(dir);
      expect(text).toMatch(/^# API report: `demo`\n/);
      expect(text).toContain(
        'in `dist/index.d.ts` (built from `src/index.ts`): each exported name, in name order, with its declaration as ' +
          'the .d.ts has it (comments removed). 9 names, 7 of them values; 3 experimental, 1 deprecated',
      );
      expect(block(text)).toBe(
        [
          '/** @experimental Not settled. */',
          'export interface Knob {',
          '    turn(): void;',
          '}',
          '',
          'export declare const Point: {',
          '    x: number;',
          '    y: number;',
          '};',
          'export type Point = typeof Point;',
          '',
          'export type Schema = {',
          '    name: typeof Schema;',
          '};',
          '',
          'export declare function add(a: number, b: number): number;',
          'export declare function add(a: string, b: string): string;',
          '',
          '/** @deprecated Import it from `demo/extra`. */',
          'export declare const moved = 1;',
          '',
          'export declare namespace ns {',
          '    export declare const a = true;',
          '    export declare function b(): void;',
          '}',
          '',
          '/** @experimental Grouped. */',
          'export declare const one = 1;',
          '',
          '// declared as helper',
          'export declare const helper: (s: string) => number;',
          '',
          '/** @experimental Grouped. */',
          'export declare let two: string | undefined;',
          '',
        ].join('\n'),
      );
      // The other entry point re-exports nothing deprecated: the tag belongs to the export that carries it.
      expect(block(report(dir, 'demo/extra'))).toBe('export declare const moved = 1;\n');
    },
    COMPILE_MS,
  );

  it(
    'refuses @deprecated on a whole export statement (TypeScript ignores it there) and one that names no new home',
    () => {
      const whole = fixture({
        'src/index.ts': "/** @deprecated Import it from `demo/extra`. */\nexport { moved } from './extra/index.js';\n",
      });
      expect(() => report(whole)).toThrow(
        'demo: @deprecated on a whole export statement (moved is in it) is not honoured by TypeScript: put it on each name',
      );
      rmSync(whole, { recursive: true, force: true });
      const homeless = fixture({
        'src/index.ts': "export {\n  /** @deprecated Going away. */\n  moved,\n} from './extra/index.js';\n",
      });
      expect(() => report(homeless)).toThrow(
        /^demo: moved is @deprecated \(on its export in .*src\/index\.ts\) without naming where to import it from instead/,
      );
    },
    COMPILE_MS,
  );

  it(
    "fails with the compiler's message when the build could not emit a declaration",
    () => {
      const dir = fixture({
        'src/index.ts': "import { hidden } from './hidden.js';\nexport const leak = hidden();\n",
        'src/hidden.ts': 'class Secret {\n  private s = 1;\n}\nexport const hidden = () => new Secret();\n',
      });
      expect(() => report(dir)).toThrow(
        /^declaration emit failed:\nsrc\/index\.ts\(2,14\): error TS4094: Property 's' of exported anonymous class type/,
      );
    },
    COMPILE_MS,
  );

  it(
    'lists what changed against the checked-in reports (a diff per file, a stale report as removed) and rewrites them',
    () => {
      const dir = fixture({ 'src/index.ts': 'export function f(a: number): number {\n  return a;\n}\n' });
      const out = join(dir, 'api');
      const before = apiReports(entryDeclarations(packageEntries(dir), dir));
      expect([...before.keys()].sort()).toEqual(['demo.api.md', 'extra.api.md']);
      writeReports(before, out);
      writeFileSync(join(out, 'gone.api.md'), 'an entry point that no longer exists\n');
      expect(reportDifferences(before, out)).toEqual([
        expect.stringMatching(/^Index: api\/gone\.api\.md\n[\s\S]*-an entry/),
      ]);

      writeFileSync(join(dir, 'src/index.ts'), 'export function f(a: number, b?: string): number {\n  return a;\n}\n');
      const after = apiReports(entryDeclarations(packageEntries(dir), dir));
      const changed = reportDifferences(after, out);
      expect(changed).toHaveLength(2);
      expect(changed[0]).toContain('-export declare function f(a: number): number;');
      expect(changed[0]).toContain('+export declare function f(a: number, b?: string): number;');
      writeReports(after, out);
      expect(reportDifferences(after, out)).toEqual([]);
      expect(readFileSync(join(out, 'demo.api.md'), 'utf8')).toBe(after.get('demo.api.md'));
    },
    COMPILE_MS,
  );
});
