import { readFile, stat } from 'node:fs/promises';
import { basename, dirname, extname, resolve } from 'node:path';
import type { Model } from '../core/index.js';
import { buildScorer, importWithNode, type ImportModule } from './scorer-spec.js';
import { parseSuiteFile } from './suite-file.js';
import { isSuiteDefinition, resolveSuite, type Suite } from './suite.js';
import { readTaskFile } from './task-file.js';

/** Options of `loadSuite`. */
export interface LoadSuiteOptions {
  /** Builds the model of an `llm_judge` scorer from its `provider:model` spec. */
  createModel?: (spec: string) => Model | Promise<Model>;
  /**
   * Imports a suite or custom scorer module by absolute path (default: node's `import`, which needs a TypeScript
   * loader already active for `.ts`; the CLI passes one that registers tsx when needed).
   */
  importModule?: ImportModule;
}

const CANDIDATES = ['suite.yaml', 'suite.yml', 'suite.ts', 'suite.js', 'suite.mjs'];

/**
 * Loads a suite from a folder (holding suite.yaml or suite.ts), a suite.yaml file, or a TS/JS module that
 * exports a `defineSuite(...)` result (as default or `suite`). Everything is validated; errors name the file,
 * line and field.
 */
export async function loadSuite(pathOrFolder: string, options: LoadSuiteOptions = {}): Promise<Suite> {
  const target = resolve(pathOrFolder);
  const st = await stat(target).catch(() => undefined);
  if (!st) throw new Error(`no suite at ${pathOrFolder}: no such file or folder`);
  let file = target;
  if (st.isDirectory()) {
    let found: string | undefined;
    for (const c of CANDIDATES) {
      if ((await stat(resolve(target, c)).catch(() => undefined))?.isFile()) {
        found = resolve(target, c);
        break;
      }
    }
    if (!found) throw new Error(`no suite in ${pathOrFolder}: expected one of ${CANDIDATES.join(', ')}`);
    file = found;
  }
  const ext = extname(file);
  if (ext === '.yaml' || ext === '.yml') return loadYamlSuite(file, options);
  if (['.ts', '.js', '.mjs', '.mts'].includes(ext))
    return loadModuleSuite(file, options.importModule ?? importWithNode);
  throw new Error(`cannot load suite ${basename(file)}: expected a .yaml file or a .ts/.js module`);
}

async function loadYamlSuite(file: string, options: LoadSuiteOptions): Promise<Suite> {
  const dir = dirname(file);
  const spec = parseSuiteFile(await readFile(file, 'utf8'), file);
  const tasks = await readTaskFile(resolve(dir, spec.tasks), spec.format);
  const scorer = await buildScorer(spec.scorer, {
    dir,
    createModel: options.createModel,
    importModule: options.importModule,
  });
  return resolveSuite(
    {
      name: spec.name,
      description: spec.description,
      tasks,
      scorer,
      agent: spec.agent,
      model: spec.model,
      budget: spec.budget,
      epochs: spec.epochs,
      mcp: spec.mcp,
    },
    dir,
  );
}

async function loadModuleSuite(file: string, importModule: ImportModule): Promise<Suite> {
  let mod: Record<string, unknown>;
  try {
    mod = await importModule(file);
  } catch (err) {
    throw new Error(`cannot load suite module ${file}: ${(err as Error).message}`, { cause: err });
  }
  const def = [mod.default, mod.suite].find(isSuiteDefinition);
  if (!def)
    throw new Error(
      `suite module ${file} exports no defineSuite(...) result as "default" or "suite" (it ` +
        `exports: ${Object.keys(mod).join(', ') || 'nothing'})`,
    );
  return resolveSuite(def, dirname(file));
}
