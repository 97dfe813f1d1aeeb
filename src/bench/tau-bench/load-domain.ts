import { AIRLINE_TOOLS } from './airline-tools.js';
import { readUpstreamFile, tauDataDir } from './install.js';
import { pyJsonDumps, pyJsonParse } from './py/py-json.js';
import { PyCall, literalToValue, parseGetInfo, parsePyAssignment, type PyLiteral } from './py/py-literal.js';
import { toPlain, type PyDict } from './py/py-value.js';
import { RETAIL_TOOLS } from './retail-tools.js';
import { TauBaseDatabase } from './tau-database.js';
import { TauSessionImpl, groundTruthHash, type TauSessionContext } from './tau-session.js';
import type { TauToolImpl } from './tau-tool.js';
import { TAU_BENCH_COMMIT, UPSTREAM_LAYOUT } from './upstream-files.js';
import type { TauDomain, TauDomainName, TauTask, TauToolInfo } from './types.js';

export interface LoadTauDomainOptions {
  /** The data dir holding the installed upstream files (default: see `tauDataDir`). */
  dataDir?: string;
}

/** Where a domain's upstream texts come from: the installed data dir, or (tests) any reader by upstream path. */
export type TauSourceReader = (path: string) => string;

/**
 * Loads a domain from the installed upstream files (each re-checked against its pinned sha256): the database,
 * the tasks of every split, the wiki, the rules and the tools' `get_info()` schemas.
 */
export async function loadTauDomain(name: TauDomainName, opts: LoadTauDomainOptions = {}): Promise<TauDomain> {
  const dataDir = tauDataDir({ dataDir: opts.dataDir });
  return buildTauDomain(name, (path) => readUpstreamFile(dataDir, path));
}

const TOOL_IMPLS: Record<TauDomainName, readonly TauToolImpl[]> = { airline: AIRLINE_TOOLS, retail: RETAIL_TOOLS };
const TERMINATE_TOOLS = ['transfer_to_human_agents'];

function kwargsOf(
  call: PyLiteral,
  fn: string,
  file: string,
  allowed: string[],
  required: string[],
): Map<string, PyLiteral> {
  if (!(call instanceof PyCall) || call.fn !== fn)
    throw new Error(`${file}: expected ${fn}(...), found ${call instanceof PyCall ? `${call.fn}(...)` : typeof call}`);
  for (const k of call.kwargs.keys())
    if (!allowed.includes(k)) throw new Error(`${file}: ${fn}(...) has an unknown field ${k}`);
  for (const k of required) if (!call.kwargs.has(k)) throw new Error(`${file}: ${fn}(...) lacks ${k}`);
  return call.kwargs;
}

/** Parses a `tasks_*.py` list of `Task(...)` into tasks. */
export function parseTauTasks(
  source: string,
  variable: string,
  file: string,
  domain: TauDomainName,
  split: string,
): TauTask[] {
  const list = parsePyAssignment(source, variable, file);
  if (!Array.isArray(list)) throw new Error(`${file}: ${variable} is not a list`);
  return list.map((item, index) => {
    const kw = kwargsOf(
      item,
      'Task',
      file,
      ['annotator', 'user_id', 'instruction', 'actions', 'outputs'],
      ['user_id', 'instruction', 'actions', 'outputs'],
    );
    const str = (k: string): string => {
      const v = kw.get(k);
      if (typeof v !== 'string') throw new Error(`${file}: task ${index}: ${k} is not a string`);
      return v;
    };
    const actionsLit = kw.get('actions');
    const outputsLit = kw.get('outputs');
    if (!Array.isArray(actionsLit)) throw new Error(`${file}: task ${index}: actions is not a list`);
    if (!Array.isArray(outputsLit) || !outputsLit.every((o) => typeof o === 'string'))
      throw new Error(`${file}: task ${index}: outputs is not a list of strings`);
    const actions = actionsLit.map((a) => {
      const akw = kwargsOf(a, 'Action', file, ['name', 'kwargs'], ['name', 'kwargs']);
      const actionName = akw.get('name');
      const kwargs = literalToValue(akw.get('kwargs')!, file);
      if (typeof actionName !== 'string' || !(kwargs instanceof Map))
        throw new Error(`${file}: task ${index}: an Action needs a str name and a dict kwargs`);
      return { name: actionName, kwargs, kwargsJson: pyJsonDumps(kwargs) };
    });
    const task: TauTask = {
      domain,
      split,
      index,
      id: String(index),
      userId: str('user_id'),
      instruction: str('instruction'),
      actions,
      outputs: outputsLit as string[],
    };
    if (kw.has('annotator')) task.annotator = str('annotator');
    return task;
  });
}

/** Builds a domain from its upstream texts (read through `read`, by upstream path). */
export function buildTauDomain(name: TauDomainName, read: TauSourceReader): TauDomain {
  const layout = UPSTREAM_LAYOUT[name];
  const path = (p: string): string => `${layout.root}/${p}`;
  const tables: [string, PyDict][] = layout.tables.map(([table, file]) => {
    const v = pyJsonParse(read(path(file)));
    if (!(v instanceof Map)) throw new Error(`${path(file)}: not a JSON object`);
    return [table, v];
  });
  const base = new TauBaseDatabase(tables);
  const wiki = read(path('wiki.md'));
  const rulesValue = literalToValue(
    parsePyAssignment(read(path('rules.py')), 'RULES', path('rules.py')),
    path('rules.py'),
  );
  if (!Array.isArray(rulesValue) || !rulesValue.every((r) => typeof r === 'string'))
    throw new Error(`${path('rules.py')}: RULES is not a list of strings`);
  const impls = new Map(TOOL_IMPLS[name].map((t) => [t.name, t]));
  const tools: TauToolInfo[] = layout.tools.map((module) => {
    const file = path(`tools/${module}.py`);
    const info = toPlain(literalToValue(parseGetInfo(read(file), file), file)) as TauToolInfo;
    const toolName = info?.function?.name;
    if (!impls.has(toolName))
      throw new Error(`${file}: get_info() names ${String(toolName)}, which this port does not implement`);
    return info;
  });
  const splitTasks = new Map<string, TauTask[]>();
  const splitOf = (split: string): TauTask[] => {
    let tasks = splitTasks.get(split);
    if (!tasks) {
      const entry = layout.splits.find(([s]) => s === split);
      if (!entry)
        throw new Error(
          `tau-bench ${name}: unknown split ${split} (splits: ${layout.splits.map(([s]) => s).join(', ')})`,
        );
      tasks = parseTauTasks(read(path(entry[1])), entry[2], path(entry[1]), name, split);
      splitTasks.set(split, tasks);
    }
    return tasks;
  };
  const gtCache = new WeakMap<TauTask, string>();
  const ctx: TauSessionContext = {
    domain: name,
    base,
    tools: impls,
    terminateTools: TERMINATE_TOOLS,
    gtHash(task) {
      let h = gtCache.get(task);
      if (h === undefined) {
        h = groundTruthHash(ctx, task);
        gtCache.set(task, h);
      }
      return h;
    },
  };
  return {
    name,
    commit: TAU_BENCH_COMMIT,
    wiki,
    rules: rulesValue as string[],
    tools,
    splits: layout.splits.map(([s]) => s),
    tasks: splitOf,
    terminateTools: [...TERMINATE_TOOLS],
    session: () => new TauSessionImpl(ctx),
  };
}
