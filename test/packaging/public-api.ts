import type { EntryDeclarations } from './api-report.js';
import type { PackageEntry } from '../helpers/package-exports.js';

/** What one entry point exports: names of runtime values, and names that exist only as types. */
export interface EntryApi {
  values: string[];
  types: string[];
}

/**
 * The export lists of the package's entry points, keyed by specifier. `runtimeKeys` gives an entry's runtime
 * export names (importing its source here, its compiled file in the installed package); its declarations (the
 * API report's, test/packaging/api-report.ts) give every exported name, so the names they list beyond the runtime
 * ones are the type-only exports.
 */
export async function publicApi(
  surface: EntryDeclarations[],
  runtimeKeys: (e: PackageEntry) => Promise<string[]>,
): Promise<Record<string, EntryApi>> {
  const out: Record<string, EntryApi> = {};
  for (const { entry, exports } of surface) {
    const values = [...(await runtimeKeys(entry))].sort();
    out[entry.specifier] = {
      values,
      types: exports
        .map((e) => e.name)
        .filter((n) => !values.includes(n))
        .sort(),
    };
  }
  return out;
}
