import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Model } from '../core/index.js';
import type { AgentFactory } from './bench-agent.js';
import type { Suite } from './suite.js';

/**
 * An option a suite provider takes on the command line of `qitos bench run` and `bench sweep` (e.g. tau-bench's
 * `--split <name>`). The provider declares it; the CLI adds it to both commands and refuses it for other suites.
 */
export interface SuiteOption {
  /** The key its value comes under, in camelCase as commander names it (`taskIds` for `--task-ids <ids>`). */
  key: string;
  /** The flag as commander declares it: `--task-ids <ids>`. Values are strings; the provider parses them. */
  flag: string;
  description: string;
}

/**
 * What the application resolved for one run of a provider's suite, the same way it does for every suite: the
 * effective config's model and step limit, `--agent`, and how to build models and import modules.
 */
export interface SuiteRunContext {
  /** The folder relative paths are resolved against. */
  cwd: string;
  /** `--agent` as given: a module path, or a name the provider knows (tau-bench's built-in agents). */
  agent: string | undefined;
  /** `--export`: the export of the agent module. */
  export: string | undefined;
  /** The effective config's model id (`--model`, `model.id`), if any. */
  modelId: string | undefined;
  /** The effective config's `engine.maxSteps`, if set. */
  maxSteps: number | undefined;
  /**
   * The model an id names, built as `--model` is (the config's provider options go with the config's own model).
   * A `scripted:` model keeps its place in its script, so each call makes a new one; other models are made once.
   */
  model(id: string): Promise<Model>;
  /** Imports a user's module (`.ts` too). */
  importModule(path: string): Promise<Record<string, unknown>>;
  /** The sha-256 of a module file, as traces record it (replay checks it). */
  moduleSha256(path: string): Promise<string>;
}

/**
 * What a provider makes of one run: the agents of its trials and how they are labelled. The application adds the
 * rest (budget, engine settings from the config, run.json settings, trace signing).
 */
export interface ProvidedRun {
  agentFactory: AgentFactory;
  /** The model every trial shares (recorded as the run's), when there is one. */
  model?: Model;
  /** How the agent is recorded in run.json and each trace (a module path, or e.g. `tau-bench:tool-calling`). */
  agentLabel: string;
  agentExport?: string;
  agentSha256?: string;
  modelLabel?: string;
  /**
   * The provider's own settings of this run (e.g. tau-bench's domain, split, user strategy and model): recorded in
   * run.json's settings under the provider's `recordKey` (a resume with other values is refused) and in every
   * trace's config as `suite`, with the provider's name, so a trial can be rebuilt.
   */
  record: Record<string, unknown>;
}

/** A provider's suite, loaded once; `prepare` makes a run of it (a sweep prepares one per cell). */
export interface ProvidedSuite {
  suite: Suite;
  prepare(ctx: SuiteRunContext): Promise<ProvidedRun>;
}

/**
 * A benchmark that brings its own suites (tau-bench's domains, CyBench's challenges): the suite names it answers on
 * the command line, the options it takes, and how a suite is opened. A new benchmark is a new provider (a folder in
 * src/bench), never an edit of the CLI. Keep this object light: load the benchmark's code in `open`.
 */
export interface SuiteProvider {
  /** Its name (`tau-bench`): what traces record as `config.suite.provider`. */
  name: string;
  /** One line for `qitos bench run --help`. */
  description: string;
  /** The suite arguments it answers, e.g. `tau-bench/airline`; a file or folder of the same name wins. */
  suites: readonly string[];
  /** What `--agent` may name besides a module, for `--help` (tau-bench: its built-in agents). */
  agentHelp?: string;
  /** Command lines shown in `--help`. */
  examples?: readonly string[];
  /** Its command-line options (values are strings as given; `open` parses and checks them). */
  options: readonly SuiteOption[];
  /** The key of its settings in run.json (kept stable: resume compares it). */
  recordKey: string;
  /**
   * How a recorded trial's suite is opened again (`qitos replay`, `fork`, `debug` of a trial): the suite, options and
   * `--agent` a run's `record` stands for, and whether that agent is a module (code: checked against the sha-256 the
   * trace records before it is imported). Throws saying why when this provider cannot rebuild the record.
   */
  reopen(record: Readonly<Record<string, unknown>>): ReopenedSuite;
  /** Opens the suite `name` (one of `suites`) with the options given (only this provider's keys). */
  open(name: string, options: Readonly<Record<string, string | undefined>>, cwd: string): Promise<ProvidedSuite>;
}

/** What a recorded trial's suite is opened again with (`SuiteProvider.reopen`). */
export interface ReopenedSuite {
  name: string;
  options: Record<string, string | undefined>;
  agent: string;
  /** Whether `agent` is a module path (else a name the provider knows). */
  module: boolean;
}

/**
 * The provider a suite argument names, or undefined for a suite on disk (a folder, a suite.yaml, a module): a file
 * or folder of that name wins over a provider's suite.
 */
export function findSuiteProvider(
  providers: readonly SuiteProvider[],
  arg: string,
  cwd: string,
): SuiteProvider | undefined {
  const provider = providers.find((p) => p.suites.includes(arg));
  return provider && !existsSync(resolve(cwd, arg)) ? provider : undefined;
}

/**
 * The options of `provider` among `given` (the command's flags), after refusing any other provider's option that was
 * given: `--split applies to tau-bench suites only (tau-bench/airline | tau-bench/retail)`.
 */
export function providerOptions(
  providers: readonly SuiteProvider[],
  provider: SuiteProvider | undefined,
  given: Readonly<Record<string, unknown>>,
): Record<string, string | undefined> {
  for (const other of providers) {
    if (other === provider) continue;
    const own = new Set(provider?.options.map((o) => o.key));
    const stray = other.options.find((o) => given[o.key] !== undefined && !own.has(o.key));
    if (stray)
      throw new Error(
        `${stray.flag.split(' ')[0]} applies to ${other.name} suites only (qitos bench run ${other.suites.join(' | ')})`,
      );
  }
  const out: Record<string, string | undefined> = {};
  for (const o of provider?.options ?? []) {
    const v = given[o.key];
    if (v !== undefined) out[o.key] = String(v);
  }
  return out;
}
