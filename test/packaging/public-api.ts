import ts from 'typescript';
import type { PackageEntry } from '../helpers/package-exports.js';

/** What one entry point exports: names of runtime values, and names that exist only as types. */
export interface EntryApi {
  values: string[];
  types: string[];
}

/**
 * The export lists of the package's entry points, keyed by specifier. `runtimeKeys` gives an entry's runtime
 * export names (importing its source here, its compiled file in the installed package); the TypeScript checker
 * gives every exported name of its source, so the names it lists beyond the runtime ones are the type-only exports.
 */
export async function publicApi(
  entries: PackageEntry[],
  runtimeKeys: (e: PackageEntry) => Promise<string[]>,
): Promise<Record<string, EntryApi>> {
  const program = ts.createProgram(
    entries.map((e) => e.source),
    {
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      target: ts.ScriptTarget.ES2022,
      noEmit: true,
      skipLibCheck: true,
      types: ['node'],
    },
  );
  const checker = program.getTypeChecker();
  const out: Record<string, EntryApi> = {};
  for (const e of entries) {
    const file = program.getSourceFile(e.source);
    const symbol = file && checker.getSymbolAtLocation(file);
    if (!symbol) throw new Error(`cannot read the exports of ${e.source}`);
    const all = checker.getExportsOfModule(symbol).map((s) => s.name);
    const values = [...(await runtimeKeys(e))].sort();
    out[e.specifier] = { values, types: all.filter((n) => !values.includes(n)).sort() };
  }
  return out;
}
