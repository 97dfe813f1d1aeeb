import { stat } from 'node:fs/promises';
import { isAbsolute, relative, resolve, sep } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { AgentModule, AgentModuleOptions } from '../engine/agent-module.js';
import { CliError } from './cli-error.js';

/** An AgentModule subclass as loaded from a file. Its constructor takes AgentModuleOptions plus its own config. */
export type AgentClass = new (options: AgentModuleOptions & Record<string, unknown>) => AgentModule<any, any>;

/** A loaded agent class and how to find it again (recorded in the manifest). */
export interface LoadedAgent {
  AgentClass: AgentClass;
  /** The module path as recorded: relative to the working folder when inside it, else absolute. */
  module: string;
  export: string;
  absPath: string;
}

/**
 * Loads an AgentModule subclass from a `.ts` or `.js` file. TypeScript is loaded at run time: through the
 * loader already active (bin/qitos.js registers tsx), else through tsx's `tsImport`. The export is
 * `exportName` when given, else the default export, else the one AgentModule subclass the module exports.
 */
export async function loadAgent(modulePath: string, exportName: string | undefined, cwd: string): Promise<LoadedAgent> {
  const absPath = resolve(cwd, modulePath);
  const st = await stat(absPath).catch(() => undefined);
  if (!st?.isFile()) throw new CliError(`agent module not found: ${modulePath}`);
  const mod = await importAgentModule(absPath, modulePath);
  const { name, value } = pickExport(mod, exportName, modulePath);
  const rel = relative(cwd, absPath);
  const recorded = rel && !rel.startsWith('..') && !isAbsolute(rel) ? rel.split(sep).join('/') : absPath;
  return { AgentClass: value, module: recorded, export: name, absPath };
}

/**
 * The exports of an agent module (`.ts` or `.js`, in an ESM or a CommonJS scope), loaded at run time; a module that
 * cannot be loaded is a CliError naming it (`shown`) and the first line of the reason.
 */
export async function importAgentModule(absPath: string, shown: string): Promise<Record<string, unknown>> {
  return esmExports(await importModule(absPath, shown));
}

async function importModule(absPath: string, shown: string): Promise<Record<string, unknown>> {
  const url = pathToFileURL(absPath).href;
  try {
    return (await import(url)) as Record<string, unknown>;
  } catch (err) {
    // No TypeScript loader active in this process (unknown extension), or the file lies in a CommonJS scope
    // (no package.json with "type": "module" above it), where tsx's registered loader hands ESM syntax to
    // require() and fails with a require cycle: load it through tsx's own import, which handles both.
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ERR_UNKNOWN_FILE_EXTENSION' || code === 'ERR_REQUIRE_CYCLE_MODULE') {
      const { tsImport } = await import('tsx/esm/api');
      try {
        return (await tsImport(url, import.meta.url)) as Record<string, unknown>;
      } catch (inner) {
        throw new CliError(`cannot load agent module ${shown}: ${firstLine(inner)}`);
      }
    }
    throw new CliError(`cannot load agent module ${shown}: ${firstLine(err)}`);
  }
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

/** The first line of an error; for esbuild's "Transform failed with N error(s):" the line naming the error. */
function firstLine(err: unknown): string {
  const lines = (err instanceof Error ? err.message : String(err)).split('\n');
  return /^Transform failed with \d+ errors?:$/.test(lines[0]) && lines[1] ? lines[1] : lines[0];
}

/** True for a class whose prototype chain has the AgentModule methods (the module may hold its own copy of AgentModule). */
function isAgentClass(v: unknown): v is AgentClass {
  if (typeof v !== 'function' || !v.prototype) return false;
  const p = v.prototype as Record<string, unknown>;
  return typeof p.initState === 'function' && typeof p.decide === 'function' && typeof p.reduce === 'function';
}

function pickExport(mod: Record<string, unknown>, exportName: string | undefined, shown: string): { name: string; value: AgentClass } {
  if (exportName) {
    if (!(exportName in mod)) throw new CliError(`agent module ${shown} has no export "${exportName}" (exports: ${Object.keys(mod).join(', ') || 'none'})`);
    const v = mod[exportName];
    if (!isAgentClass(v)) throw new CliError(`export "${exportName}" of ${shown} is not an AgentModule subclass`);
    return { name: exportName, value: v };
  }
  if (isAgentClass(mod.default)) return { name: 'default', value: mod.default };
  // A module may re-export AgentModule itself; it is abstract, so only its subclasses count.
  const concrete = Object.entries(mod).filter(([k, v]) => k !== 'default' && isAgentClass(v) && (v as { name?: string }).name !== 'AgentModule');
  if (concrete.length === 1) return { name: concrete[0][0], value: concrete[0][1] as AgentClass };
  if (concrete.length === 0) throw new CliError(`agent module ${shown} exports no AgentModule subclass (export one as default, or name it with --export)`);
  throw new CliError(`agent module ${shown} exports several AgentModule subclasses (${concrete.map(([k]) => k).join(', ')}); pick one with --export`);
}
