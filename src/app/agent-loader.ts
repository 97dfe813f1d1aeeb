import { stat } from 'node:fs/promises';
import { isAbsolute, relative, resolve, sep } from 'node:path';
import type { AgentModuleOptions, AnyAgentModule } from '../engine/agent-module.js';
import { AppError } from './app-error.js';
import { importUserModule } from './user-module.js';
import { moduleSha256 } from './module-hash.js';

/** An AgentModule subclass as loaded from a file. Its constructor takes AgentModuleOptions plus its own config. */
export type AgentClass = new (options: AgentModuleOptions & Record<string, unknown>) => AnyAgentModule;

/** A loaded agent class and how to find it again (recorded in the manifest). */
export interface LoadedAgent {
  AgentClass: AgentClass;
  /** The module path as recorded: relative to the working folder when inside it, else absolute. */
  module: string;
  export: string;
  absPath: string;
  /** sha-256 of the module file when it was loaded (recorded in the manifest); absent for a built-in agent. */
  sha256?: string;
}

/**
 * Loads an AgentModule subclass from a `.ts` or `.js` file (see importUserModule). The export is `exportName`
 * when given, else the default export, else the one AgentModule subclass the module exports.
 */
export async function loadAgent(modulePath: string, exportName: string | undefined, cwd: string): Promise<LoadedAgent> {
  const absPath = resolve(cwd, modulePath);
  const st = await stat(absPath).catch(() => undefined);
  if (!st?.isFile()) throw new AppError(`agent module not found: ${modulePath}`);
  const mod = await importAgentModule(absPath, modulePath);
  const { name, value } = pickExport(mod, exportName, modulePath);
  const rel = relative(cwd, absPath);
  const recorded = rel && !rel.startsWith('..') && !isAbsolute(rel) ? rel.split(sep).join('/') : absPath;
  return { AgentClass: value, module: recorded, export: name, absPath, sha256: await moduleSha256(absPath) };
}

/** The exports of an agent module; one that does not load is a AppError naming it (`shown`) and why. */
export async function importAgentModule(absPath: string, shown: string): Promise<Record<string, unknown>> {
  try {
    return await importUserModule(absPath);
  } catch (err) {
    throw new AppError(`cannot load agent module ${shown}: ${(err as Error).message}`, undefined, {
      cause: (err as Error).cause ?? err,
    });
  }
}

/** True for a class whose prototype chain has the AgentModule methods (the module may hold its own copy of AgentModule). */
function isAgentClass(v: unknown): v is AgentClass {
  if (typeof v !== 'function' || !v.prototype) return false;
  const p = v.prototype as Record<string, unknown>;
  return typeof p.initState === 'function' && typeof p.decide === 'function' && typeof p.reduce === 'function';
}

function pickExport(
  mod: Record<string, unknown>,
  exportName: string | undefined,
  shown: string,
): { name: string; value: AgentClass } {
  if (exportName) {
    if (!(exportName in mod))
      throw new AppError(
        `agent module ${shown} has no export "${exportName}" (exports: ${Object.keys(mod).join(', ') || 'none'})`,
      );
    const v = mod[exportName];
    if (!isAgentClass(v)) throw new AppError(`export "${exportName}" of ${shown} is not an AgentModule subclass`);
    return { name: exportName, value: v };
  }
  if (isAgentClass(mod.default)) return { name: 'default', value: mod.default };
  // A module may re-export AgentModule itself; it is abstract, so only its subclasses count.
  const concrete = Object.entries(mod).filter(
    ([k, v]) => k !== 'default' && isAgentClass(v) && (v as { name?: string }).name !== 'AgentModule',
  );
  if (concrete.length === 1) return { name: concrete[0][0], value: concrete[0][1] as AgentClass };
  if (concrete.length === 0)
    throw new AppError(
      `agent module ${shown} exports no AgentModule subclass (export one as default, or name it with --export)`,
    );
  throw new AppError(
    `agent module ${shown} exports several AgentModule subclasses (${concrete.map(([k]) => k).join(', ')}); pick one with --export`,
  );
}
