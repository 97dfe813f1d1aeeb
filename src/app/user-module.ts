import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { extname } from 'node:path';
import { pathToFileURL } from 'node:url';

const TYPESCRIPT = new Set(['.ts', '.mts', '.cts', '.tsx']);

/**
 * The tsx registration of this process. Module hooks are process-wide (node has one loader chain), so this is
 * the one piece of module state the CLI keeps: registering twice would chain a second compiler behind the first.
 */
let tsxRegistered: Promise<void> | undefined;

/**
 * Imports a user's module (an agent module, a suite, a scorer) by absolute path and returns its exports.
 * `.js`/`.mjs`/`.cjs` go through node's own `import`; `.ts`/`.mts`/`.cts` through tsx, which is registered the
 * first time this process meets TypeScript (a run of `.js` modules never loads it). A module that cannot be
 * loaded rejects with an Error whose message is the reason in one line (the file:line:col of a syntax error, the
 * package or `qitos-ts` subpath that is missing) and whose cause is node's or tsx's error.
 */
export async function importUserModule(absPath: string): Promise<Record<string, unknown>> {
  const url = pathToFileURL(absPath).href;
  try {
    if (TYPESCRIPT.has(extname(absPath)) && !import.meta.url.endsWith('.ts')) await (tsxRegistered ??= registerTsx());
    return esmExports((await import(url)) as Record<string, unknown>);
  } catch (err) {
    // tsx's registered loader hands a `.ts` file in a CommonJS scope (no package.json with "type": "module" above
    // it) to require(), which fails on its ESM syntax with a require cycle: load it through tsx's own import.
    if ((err as NodeJS.ErrnoException).code === 'ERR_REQUIRE_CYCLE_MODULE') {
      const { tsImport } = await import('tsx/esm/api');
      try {
        return esmExports((await tsImport(url, import.meta.url)) as Record<string, unknown>);
      } catch (inner) {
        throw new Error(loadFailure(inner, absPath), { cause: inner });
      }
    }
    throw new Error(loadFailure(err, absPath), { cause: err });
  }
}

async function registerTsx(): Promise<void> {
  // A bug in the user's module is reported at its .ts line (failure records keep the stack), not the compiled one's.
  process.setSourceMapsEnabled(true);
  const [{ register }, cjs] = await Promise.all([import('tsx/esm/api'), import('tsx/cjs/api')]);
  register();
  // A .ts file in a CommonJS scope is handed to require(): tsx's require hook compiles it with its source map
  // (without it, node's require(esm) refuses the file and tsImport's fallback loses the line numbers).
  cjs.register();
}

/**
 * The ESM exports of a module. A file in a CommonJS scope is compiled to CommonJS by tsx, so its namespace
 * is `{ default: module.exports }` with the real exports (and `__esModule`) on that object: unwrap it.
 */
function esmExports(mod: Record<string, unknown>): Record<string, unknown> {
  const cjs = mod.default as Record<string, unknown> | undefined;
  if (!cjs || typeof cjs !== 'object' || cjs.__esModule !== true) return mod;
  return Object.fromEntries(Object.keys(cjs).map((k) => [k, cjs[k]]));
}

/** Why a module did not load, in one line. */
function loadFailure(err: unknown, absPath: string): string {
  const e = err as NodeJS.ErrnoException;
  const lines = (err instanceof Error ? err.message : String(err)).split('\n');
  // esbuild (through tsx): "Transform failed with 1 error:\n/abs/file.ts:3:10: ERROR: Expected ..."
  if (/^Transform failed with \d+ errors?:$/.test(lines[0]) && lines[1]) return lines[1];
  if (err instanceof SyntaxError) return syntaxErrorLine(absPath) ?? lines[0];
  if (/^Cannot use import statement outside a module/.test(lines[0])) {
    return `${lines[0]} (a .js file with import syntax needs "type": "module" in its package.json, or the .mjs extension)`;
  }
  if (e.code === 'ERR_PACKAGE_PATH_NOT_EXPORTED') return unknownSubpath(lines[0]) ?? lines[0];
  return lines[0];
}

/**
 * Where a JavaScript module's syntax error is. node's error for an imported module carries no position, so ask
 * node itself: `node --check` parses the file (it runs nothing) and prints `/abs/file.js:LINE`, the source line,
 * a caret line under the column, then the error. Only called once a module has failed to load.
 */
function syntaxErrorLine(absPath: string): string | undefined {
  const r = spawnSync(process.execPath, ['--check', absPath], {
    env: {},
    encoding: 'utf8',
    timeout: 10_000,
    maxBuffer: 1024 * 1024,
  });
  const lines = (r.stderr ?? '').split('\n');
  const at = lines.findIndex((l) => /^\S.*:\d+$/.test(l) && l.includes(absPath));
  const error = lines.find((l) => /^SyntaxError: /.test(l));
  if (at < 0 || !error) return undefined;
  const line = lines[at].slice(lines[at].lastIndexOf(':') + 1);
  const caret = lines[at + 2] ?? '';
  const col = /^\s*\^/.test(caret) ? `:${caret.indexOf('^') + 1}` : '';
  return `${absPath}:${line}${col}: ${error}`;
}

/**
 * node: `Package subpath './internal' is not defined by "exports" in /x/node_modules/qitos-ts/package.json
 * imported from /x/agent.ts`. For qitos-ts itself, name the subpaths there are.
 */
function unknownSubpath(message: string): string | undefined {
  const m = /^Package subpath '\.\/(.+?)' is not defined by "exports" in (\S+package\.json)/.exec(message);
  if (!m) return undefined;
  let pkg: { name?: string; exports?: Record<string, unknown> };
  try {
    pkg = JSON.parse(readFileSync(m[2], 'utf8')) as typeof pkg;
  } catch {
    return undefined; // node's own message (which the caller shows) names the package.json already
  }
  if (pkg.name !== 'qitos-ts' || !pkg.exports) return undefined;
  const subpaths = Object.keys(pkg.exports)
    .filter((k) => k !== './package.json')
    .map((k) => (k === '.' ? 'qitos-ts' : `qitos-ts/${k.slice(2)}`));
  return `qitos-ts has no subpath "qitos-ts/${m[1]}" (it has ${subpaths.join(', ')})`;
}
