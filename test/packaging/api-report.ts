import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { createTwoFilesPatch } from 'diff';
import ts from 'typescript';
import { packageEntries, REPO, type PackageEntry } from '../helpers/package-exports.js';
import { publicApi } from './public-api.js';

/**
 * The API report: for each entry point of package.json `exports`, every name it exports with its declaration as a
 * consumer sees it in the .d.ts, and the stability tags it carries. The declarations come from the compiler's own
 * declaration emit over the sources (in memory: nothing is written, no dist/ is read), read back as a second
 * program the way a consumer's compiler reads the package. The reports are checked in (api/<entry>.api.md); the
 * packaging test fails when the sources would give a different one.
 *
 * Run: `npm run api` writes api/ (and test/packaging/public-api.json, the export lists) from the sources;
 * `npm run api -- --check` only compares (exit 1 on a difference).
 */

/** The folder holding the checked-in reports. */
export const REPORT_DIR = join(REPO, 'api');
/** The export lists the packaging tests pin (what `npm run api` writes besides the reports). */
const PINNED_NAME = 'test/packaging/public-api.json';
const PINNED = join(REPO, PINNED_NAME);
/** The command that regenerates the reports and the pinned lists (what a failing check tells the reader to run). */
export const REPORT_COMMAND = 'npm run api';

/** A stability tag on an export: `@experimental` (may change in a minor version) or `@deprecated` (will go). */
export interface StabilityTag {
  tag: 'experimental' | 'deprecated';
  /** The tag's comment: why, or (for `@deprecated`) where to import the name from instead. */
  text: string;
}

/** One name an entry point exports. */
export interface ExportedName {
  name: string;
  /** Whether a consumer can use it as a value (a function, class, constant or schema), not only as a type. */
  value: boolean;
  stability: StabilityTag[];
  /** Its declarations as the .d.ts has them (overloads and a value's companion type each one), comments removed. */
  declarations: string[];
}

/** What one entry point exports, from its .d.ts. */
export interface EntryDeclarations {
  entry: PackageEntry;
  exports: ExportedName[];
}

const STABILITY_TAGS = new Set<string>(['experimental', 'deprecated']);

/**
 * Every entry point's exports, from the declarations the build would emit. Throws when the declaration emit
 * reports an error, or when a stability tag is where the compiler would not honour it (a `@deprecated` on a whole
 * `export { ... }` statement: TypeScript only strikes through names deprecated one by one).
 */
export function entryDeclarations(entries: PackageEntry[] = packageEntries(), root = REPO): EntryDeclarations[] {
  const { dts, globals } = emitDeclarations(entries, root);
  const outDir = join(root, 'dist');
  const program = declarationProgram(dts, globals, outDir, entries, root);
  const checker = program.getTypeChecker();
  const printer = ts.createPrinter({ removeComments: true, newLine: ts.NewLineKind.LineFeed });
  return entries.map((entry) => {
    const file = program.getSourceFile(resolve(root, entry.types));
    const moduleSymbol = file && checker.getSymbolAtLocation(file);
    if (!file || !moduleSymbol) throw new Error(`${entry.specifier}: no declarations at ${entry.types}`);
    const exports = checker
      .getExportsOfModule(moduleSymbol)
      .map((symbol) => exportedName(symbol, file, checker, printer, entry))
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    return { entry, exports };
  });
}

/**
 * The .d.ts text of every source file the entry points reach, keyed by the path the build would write it to, and
 * the globals the build compiles with (`lib`, `types`).
 */
function emitDeclarations(
  entries: PackageEntry[],
  root: string,
): { dts: Map<string, string>; globals: Pick<ts.CompilerOptions, 'lib' | 'types'> } {
  const config = ts.getParsedCommandLineOfConfigFile(join(root, 'tsconfig.build.json'), undefined, {
    ...ts.sys,
    onUnRecoverableConfigFileDiagnostic: (d) => {
      throw new Error(`tsconfig.build.json: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`);
    },
  });
  if (!config) throw new Error(`cannot read ${join(root, 'tsconfig.build.json')}`);
  const program = ts.createProgram(
    entries.map((e) => e.source),
    {
      ...config.options,
      noEmit: false,
      declaration: true,
      emitDeclarationOnly: true,
      sourceMap: false,
      inlineSources: false,
      declarationMap: false,
    },
  );
  const dts = new Map<string, string>();
  const emitted = program.emit(undefined, (fileName, text) => dts.set(resolve(fileName), text), undefined, true);
  const errors = [...program.getOptionsDiagnostics(), ...emitted.diagnostics];
  if (errors.length > 0)
    throw new Error(
      `declaration emit failed:\n${ts.formatDiagnostics(errors, {
        getCanonicalFileName: (f) => f,
        getCurrentDirectory: () => root,
        getNewLine: () => '\n',
      })}`,
    );
  return { dts, globals: { lib: config.options.lib, types: config.options.types } };
}

/**
 * A program over the emitted .d.ts files (held in memory at their dist/ paths) and the package's dependencies, as
 * a consumer compiles against the package. A real dist/ on disk is never read: the emitted files stand in for it.
 */
function declarationProgram(
  dts: Map<string, string>,
  globals: Pick<ts.CompilerOptions, 'lib' | 'types'>,
  outDir: string,
  entries: PackageEntry[],
  root: string,
): ts.Program {
  const options: ts.CompilerOptions = {
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    target: ts.ScriptTarget.ES2022,
    noEmit: true,
    skipLibCheck: true,
    ...globals,
  };
  const inDist = (p: string) => p === outDir || p.startsWith(`${outDir}/`);
  const host = ts.createCompilerHost(options, true);
  const { fileExists, readFile, directoryExists, getSourceFile } = host;
  host.fileExists = (p) => dts.has(p) || (!inDist(p) && fileExists(p));
  host.readFile = (p) => dts.get(p) ?? (inDist(p) ? undefined : readFile(p));
  host.directoryExists = (d) =>
    inDist(d) ? [...dts.keys()].some((k) => k.startsWith(`${d}/`)) : (directoryExists?.(d) ?? true);
  host.getSourceFile = (p, language, onError, shouldCreate) => {
    const text = dts.get(p);
    if (text !== undefined) return ts.createSourceFile(p, text, language, true);
    return inDist(p) ? undefined : getSourceFile(p, language, onError, shouldCreate);
  };
  host.getCurrentDirectory = () => root;
  return ts.createProgram(
    entries.map((e) => resolve(root, e.types)),
    options,
    host,
  );
}

/** One exported symbol of `entryFile`: its value meaning, stability tags and printed declarations. */
function exportedName(
  symbol: ts.Symbol,
  entryFile: ts.SourceFile,
  checker: ts.TypeChecker,
  printer: ts.Printer,
  entry: PackageEntry,
): ExportedName {
  const name = symbol.name;
  // Follow the chain of re-exports to the declaration; a type-only link anywhere makes the name a type here.
  let typeOnly = false;
  let current = symbol;
  const entrySpecifiers: ts.ExportSpecifier[] = [];
  while (current.flags & ts.SymbolFlags.Alias) {
    for (const d of current.declarations ?? []) {
      if (ts.isExportSpecifier(d) || ts.isImportSpecifier(d) || ts.isImportClause(d)) {
        if (ts.isTypeOnlyImportOrExportDeclaration(d)) typeOnly = true;
        if (ts.isExportSpecifier(d) && d.getSourceFile() === entryFile) entrySpecifiers.push(d);
      }
    }
    const next = checker.getImmediateAliasedSymbol(current);
    if (!next || next === current) break;
    current = next;
  }
  const target = current.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(current) : current;
  const declarations = (target.declarations ?? []).filter((d) => !typeOnly || !isValueOnly(d));
  if (declarations.length === 0) throw new Error(`${entry.specifier}: ${name} has no declaration`);

  const packageName = entry.key === '.' ? entry.specifier : entry.specifier.slice(0, 1 - entry.key.length);
  const stability: StabilityTag[] = [];
  const addTags = (node: ts.Node, where: string) => {
    for (const tag of ts.getJSDocTags(node)) {
      const kind = tag.tagName.text;
      if (!STABILITY_TAGS.has(kind)) continue;
      const text = (ts.getTextOfJSDocComment(tag.comment) ?? '').replace(/\s+/g, ' ').trim();
      if (kind === 'deprecated' && !text.includes(`\`${packageName}`))
        throw new Error(
          `${entry.specifier}: ${name} is @deprecated (${where}) without naming where to import it from instead ` +
            `(e.g. "@deprecated Import it from \`${packageName}/models\`.")`,
        );
      if (!stability.some((s) => s.tag === kind && s.text === text))
        stability.push({ tag: kind as StabilityTag['tag'], text });
    }
  };
  for (const d of declarations) addTags(ts.isVariableDeclaration(d) ? d.parent.parent : d, 'on its declaration');
  for (const spec of entrySpecifiers) {
    addTags(spec, `on its export in ${entry.source}`);
    const statement = spec.parent.parent;
    if (ts.getJSDocTags(statement).some((t) => t.tagName.text === 'deprecated'))
      throw new Error(
        `${entry.specifier}: @deprecated on a whole export statement (${name} is in it) is not honoured by ` +
          'TypeScript: put it on each name (export { /** @deprecated ... */ name })',
      );
    addTags(statement, `on the export statement in ${entry.source}`);
  }

  const printed = declarations.map((d) => printDeclaration(d, name, printer, checker));
  const renamed = target.name !== name && !declarations.some(ts.isSourceFile);
  const declaredAs = renamed ? `// declared as ${target.name}\n` : '';
  return {
    name,
    value: !typeOnly && (target.flags & ts.SymbolFlags.Value) !== 0,
    stability,
    declarations: printed.map((p, i) => (i === 0 ? declaredAs + p : p)),
  };
}

/** A declaration that has no meaning as a type: what a type-only export leaves out. */
function isValueOnly(d: ts.Declaration): boolean {
  return ts.isVariableDeclaration(d) || ts.isFunctionDeclaration(d);
}

/**
 * A declaration's statement as the .d.ts prints it, without comments (one declarator of a `const a, b`). A module
 * exported whole (`export * as stats from './stats.js'`) prints as a namespace holding its exports' declarations.
 */
function printDeclaration(d: ts.Declaration, name: string, printer: ts.Printer, checker: ts.TypeChecker): string {
  const file = d.getSourceFile();
  if (ts.isSourceFile(d)) {
    const members = checker
      .getExportsOfModule(checker.getSymbolAtLocation(d)!)
      .map((m) => (m.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(m) : m))
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
      .flatMap((m) => (m.declarations ?? []).map((md) => printDeclaration(md, m.name, printer, checker)));
    const body = members.join('\n').replace(/^(?=.)/gm, '    ');
    return `export declare namespace ${name} {\n${body}\n}`;
  }
  if (ts.isVariableDeclaration(d)) {
    const statement = d.parent.parent as ts.VariableStatement;
    const single =
      statement.declarationList.declarations.length === 1
        ? statement
        : ts.factory.updateVariableStatement(
            statement,
            statement.modifiers,
            ts.factory.updateVariableDeclarationList(statement.declarationList, [d]),
          );
    return printer.printNode(ts.EmitHint.Unspecified, single, file);
  }
  if (
    ts.isFunctionDeclaration(d) ||
    ts.isClassDeclaration(d) ||
    ts.isInterfaceDeclaration(d) ||
    ts.isTypeAliasDeclaration(d) ||
    ts.isEnumDeclaration(d) ||
    ts.isModuleDeclaration(d)
  )
    return printer.printNode(ts.EmitHint.Unspecified, d, file);
  throw new Error(`cannot report a ${ts.SyntaxKind[d.kind]} declaration (${file.fileName})`);
}

/** The report's file name for an entry point: `qitos-ts.api.md` for the root (the package), `models.api.md` for `./models`. */
export function reportFileName(entry: PackageEntry): string {
  return `${entry.key === '.' ? entry.specifier : entry.key.slice(2)}.api.md`;
}

/** One entry point's report (Markdown with one TypeScript block). */
export function renderReport({ entry, exports }: EntryDeclarations): string {
  const count = (tag: StabilityTag['tag']) => exports.filter((e) => e.stability.some((s) => s.tag === tag)).length;
  const values = exports.filter((e) => e.value).length;
  const body = exports.map((e) => {
    const tags = e.stability.map((s) => `/** @${s.tag}${s.text ? ` ${s.text}` : ''} */\n`).join('');
    return `${tags}${e.declarations.join('\n')}`;
  });
  return [
    `# API report: \`${entry.specifier}\``,
    '',
    `<!-- Generated by \`${REPORT_COMMAND}\` (test/packaging/api-report.ts); do not edit. -->`,
    '',
    `What a consumer of \`${entry.specifier}\` sees in \`${entry.types.slice(2)}\` (built from ` +
      `\`${entry.default.replace(/^\.\/dist\//, 'src/').replace(/\.js$/, '.ts')}\`): each exported name, in name order, with its declaration as the ` +
      `.d.ts has it (comments removed). ${exports.length} names, ${values} of them values; ` +
      `${count('experimental')} experimental, ${count('deprecated')} deprecated (docs/api.md, "Stability").`,
    '',
    '```ts',
    body.join('\n\n'),
    '```',
    '',
  ].join('\n');
}

/** Every entry point's report, keyed by file name. */
export function apiReports(surface: EntryDeclarations[] = entryDeclarations()): Map<string, string> {
  return new Map(surface.map((s) => [reportFileName(s.entry), renderReport(s)]));
}

/** How the checked-in reports differ from `reports`: one unified diff per file that changed, appeared or went. */
export function reportDifferences(reports: Map<string, string>, dir = REPORT_DIR): string[] {
  const onDisk = existsSync(dir) ? readdirSync(dir).filter((f) => f.endsWith('.api.md')) : [];
  const names = [...new Set([...reports.keys(), ...onDisk])].sort();
  const out: string[] = [];
  for (const name of names) {
    const was = onDisk.includes(name) ? readFileSync(join(dir, name), 'utf8') : '';
    const now = reports.get(name) ?? '';
    if (was !== now)
      out.push(createTwoFilesPatch(`api/${name}`, `api/${name}`, was, now, 'checked in', 'from the sources'));
  }
  return out;
}

/** Writes `reports` into `dir`, removing reports of entry points that are gone. */
export function writeReports(reports: Map<string, string>, dir = REPORT_DIR): void {
  mkdirSync(dir, { recursive: true });
  for (const f of readdirSync(dir)) if (f.endsWith('.api.md') && !reports.has(f)) rmSync(join(dir, f));
  for (const [name, text] of reports) writeFileSync(join(dir, name), text);
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  // The reports, and the export lists test/packaging/public-api.json pins (runtime names from importing each source).
  const surface = entryDeclarations();
  const reports = apiReports(surface);
  const changed = reportDifferences(reports);
  const api = await publicApi(surface, async (e) => Object.keys(await import(pathToFileURL(e.source).href)));
  const pinned = `${JSON.stringify(api, null, 2)}\n`;
  if (readFileSync(PINNED, 'utf8') !== pinned)
    changed.push(createTwoFilesPatch(PINNED_NAME, PINNED_NAME, readFileSync(PINNED, 'utf8'), pinned));
  if (process.argv.includes('--check')) {
    if (changed.length > 0) {
      console.error(`${changed.join('\n')}\nThe API report differs from the sources: run ${REPORT_COMMAND}.`);
      process.exit(1);
    }
    console.log(`api/: ${reports.size} reports and ${PINNED_NAME} match the sources`);
  } else {
    writeReports(reports);
    writeFileSync(PINNED, pinned);
    console.log(
      changed.length === 0
        ? `api/: ${reports.size} reports and ${PINNED_NAME}, unchanged`
        : `${changed.length} files changed (api/: ${reports.size} reports; ${PINNED_NAME}):\n${changed.join('\n')}`,
    );
  }
}
