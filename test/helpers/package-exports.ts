import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root. */
export const REPO = resolve(fileURLToPath(new URL('../..', import.meta.url)));

/** One entry point of the package, as package.json `exports` declares it. */
export interface PackageEntry {
  /** How a user imports it: `qitos-ts`, `qitos-ts/models`, ... */
  specifier: string;
  /** The `exports` key: `.`, `./models`, ... */
  key: string;
  /** Targets in the package (relative, `./dist/...`). */
  types: string;
  default: string;
  /** The TypeScript source the entry is compiled from (absolute), by the build's src/ -> dist/ mapping. */
  source: string;
}

/** The package's entry points (every `exports` key but `./package.json`), read from package.json. */
export function packageEntries(root = REPO): PackageEntry[] {
  const pkg = JSON.parse(readFileSync(resolve(root, 'package.json'), 'utf8')) as {
    name: string;
    exports: Record<string, unknown>;
  };
  return Object.entries(pkg.exports)
    .filter(([key]) => key !== './package.json')
    .map(([key, target]) => {
      const t = target as { types: string; default: string };
      return {
        specifier: key === '.' ? pkg.name : `${pkg.name}/${key.slice(2)}`,
        key,
        types: t.types,
        default: t.default,
        source: resolve(root, t.default.replace(/^\.\/dist\//, 'src/').replace(/\.js$/, '.ts')),
      };
    });
}

/**
 * Rewrites `from 'qitos-ts…'` in code written for the installed package to the repository's sources (absolute
 * paths), so the same code runs in a checkout without a build.
 */
export function toSourceImports(code: string): string {
  const bySpecifier = new Map(packageEntries().map((e) => [e.specifier, e.source]));
  return code.replace(/(from\s+)(['"])(qitos-ts(?:\/[\w-]+)?)\2/g, (all, from: string, q: string, spec: string) => {
    const source = bySpecifier.get(spec);
    if (!source) throw new Error(`no entry point ${spec} in package.json exports`);
    return `${from}${q}${source}${q}`;
  });
}
