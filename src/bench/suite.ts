import { resolve } from 'node:path';
import type { Budget } from '../core/index.js';
import type { McpConfig } from '../kit/mcp/index.js';
import { BenchTask, type BenchTaskInput } from './bench-task.js';
import type { Scorer } from './scorer.js';
import { issueText } from './task-file.js';

/** A suite ready to run: its tasks loaded and validated, its scorer built. */
export interface Suite {
  name: string;
  description?: string;
  /** The folder the suite came from (agent modules and task files are relative to it). */
  dir?: string;
  tasks: BenchTask[];
  scorer: Scorer;
  /** Default agent module (absolute path), used when no agent is given. */
  agent?: string;
  /** Default model spec (`provider:model`), used when none is given. */
  model?: string;
  /** Budget every task runs under (the tighter of this and a task's own budget applies). */
  budget?: Budget;
  /** Default number of epochs (runs per task). */
  epochs: number;
  /** MCP servers of every trial (`mcp:` of suite.yaml). */
  mcp?: McpConfig;
}

/** What `defineSuite` takes: tasks as a list or a function that loads or generates them. */
export interface SuiteDefinition {
  name: string;
  description?: string;
  tasks: BenchTaskInput[] | (() => BenchTaskInput[] | Promise<BenchTaskInput[]>);
  scorer: Scorer;
  /** Default agent module, relative to the suite module's folder. */
  agent?: string;
  model?: string;
  budget?: Budget;
  epochs?: number;
  mcp?: McpConfig;
}

const SUITE_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

/** Marks an object as a suite definition so `loadSuite` can find it in a module's exports. */
export const SUITE_BRAND = Symbol.for('qitos.suite');

/** Defines a suite in code (export it as the module's default or as `suite`). Checks the fields it can now. */
export function defineSuite(def: SuiteDefinition): SuiteDefinition {
  if (!def || typeof def !== 'object') throw new Error('defineSuite needs an object');
  if (typeof def.name !== 'string' || !SUITE_NAME.test(def.name))
    throw new Error(
      `defineSuite: field "name": use letters, digits, ".", "_" or "-" (got ${JSON.stringify(def.name)})`,
    );
  if (!def.scorer || typeof def.scorer.score !== 'function')
    throw new Error(`defineSuite "${def.name}": field "scorer": a Scorer ({ name, score }) is required`);
  if (!Array.isArray(def.tasks) && typeof def.tasks !== 'function')
    throw new Error(
      `defineSuite "${def.name}": field "tasks": a list of tasks or a function returning them is required`,
    );
  if (def.epochs !== undefined && (!Number.isInteger(def.epochs) || def.epochs < 1))
    throw new Error(`defineSuite "${def.name}": field "epochs": a positive integer is required`);
  return Object.assign(Object.create(null), def, { [SUITE_BRAND]: true }) as SuiteDefinition;
}

/** Whether a value came from `defineSuite`. */
export function isSuiteDefinition(value: unknown): value is SuiteDefinition {
  return !!value && typeof value === 'object' && (value as Record<symbol, unknown>)[SUITE_BRAND] === true;
}

/** Validates a list of raw tasks; errors name the index and field, duplicates name both indexes. */
export function validateTasks(raw: readonly unknown[], where: string): BenchTask[] {
  const seen = new Map<string, number>();
  const out: BenchTask[] = [];
  raw.forEach((item, i) => {
    const r = BenchTask.safeParse(item);
    if (!r.success) throw new Error(`${where} tasks[${i}]: ${issueText(r.error)}`);
    const first = seen.get(r.data.id);
    if (first !== undefined)
      throw new Error(`${where}: duplicate task id "${r.data.id}" at tasks[${i}] (first at tasks[${first}])`);
    seen.set(r.data.id, i);
    out.push(r.data);
  });
  if (out.length === 0) throw new Error(`${where}: no tasks`);
  return out;
}

/** Turns a definition into a runnable Suite (loads its tasks). */
export async function resolveSuite(def: SuiteDefinition | Suite, dir?: string): Promise<Suite> {
  const tasks = typeof def.tasks === 'function' ? await def.tasks() : def.tasks;
  if (!Array.isArray(tasks))
    throw new Error(`suite "${def.name}": the tasks function returned ${typeof tasks}, not a list`);
  const d = 'dir' in def && def.dir ? def.dir : dir;
  return {
    name: def.name,
    ...(def.description ? { description: def.description } : {}),
    ...(d ? { dir: d } : {}),
    tasks: validateTasks(tasks, `suite "${def.name}"`),
    scorer: def.scorer,
    ...(def.agent ? { agent: d ? resolve(d, def.agent) : def.agent } : {}),
    ...(def.model ? { model: def.model } : {}),
    ...(def.budget ? { budget: def.budget } : {}),
    epochs: def.epochs ?? 1,
    ...(def.mcp ? { mcp: def.mcp } : {}),
  };
}
