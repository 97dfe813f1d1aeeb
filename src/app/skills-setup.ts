import { resolve } from 'node:path';
import type { AnyTool, Env, Policy, State } from '../core/index.js';
import type { AgentModule } from '../engine/agent-module.js';
import { HostEnv, findBwrap } from '../envs/index.js';
import { discloseSkills, loadSkills, skillScriptTool, skillTool, ToolRetrievalService } from '../kit/skills/index.js';
import { AppError } from './app-error.js';
import type { QitosConfig } from './config-schema.js';

/** What a run gets from the config's `skills:` section: tools to register, and a policy that records the disclosure. */
export interface ConfiguredSkills {
  tools: AnyTool[];
  policies: Policy<State>[];
}

/**
 * The skills of the config (docs/skills.md): the `skill` tool listing every skill (`disclosure: list`, the default),
 * or listing the pinned ones with `find_skills` to search the rest by meaning (`disclosure: retrieval`); and
 * `run_skill_script`, which runs a skill's scripts in the sandbox (`scripts: sandbox`). With `scripts` unset, scripts
 * run where bubblewrap works and the run has a workspace on disk; elsewhere they are off, and `warn` says so once.
 */
export async function configuredSkills(
  config: QitosConfig,
  env: Env | undefined,
  cwd: string,
  warn: (line: string) => void = () => undefined,
): Promise<ConfiguredSkills> {
  const s = config.skills;
  if (!s) return { tools: [], policies: [] };
  const roots = s.roots.map((r) => resolve(cwd, r));
  const scripts = scriptsMode(s.scripts, env, warn);
  if ((s.disclosure ?? 'list') === 'list') {
    const catalog = await loadSkills(roots).catch((err: Error) => {
      throw new AppError(`skills: ${err.message}`);
    });
    return { tools: [skillTool(catalog), ...(scripts ? [skillScriptTool(catalog)] : [])], policies: [] };
  }
  if (roots.length !== 1)
    throw new AppError(
      `skills.disclosure: retrieval searches one skills root (its index); the config gives ${roots.length}: keep one in skills.roots`,
    );
  const { service } = await ToolRetrievalService.open(roots[0]!).catch((err: Error) => {
    throw new AppError(`skills: ${err.message}`);
  });
  // No task is known when the engine is built (a server runs many): the run is shown its pinned skills and searches
  // the rest with find_skills, then loads what it found.
  const disclosed = await discloseSkills({
    retrieval: service,
    task: '',
    pinned: s.pinned ?? [],
    ...(s.threshold !== undefined ? { threshold: s.threshold } : {}),
    scripts,
  });
  return { tools: disclosed.tools, policies: [disclosed.policy as Policy<State>] };
}

/** Registers the configured skills' tools on the agent (unless it brings its own `skill` tool). */
export async function addSkills(
  agent: AgentModule<State, unknown>,
  config: QitosConfig,
  env: Env | undefined,
  cwd: string,
  warn?: (line: string) => void,
): Promise<Policy<State>[]> {
  if (!config.skills || agent.tools.has('skill')) return [];
  const { tools, policies } = await configuredSkills(config, env, cwd, warn);
  for (const t of tools) if (!agent.tools.has(t.id)) agent.tools.register(t);
  return policies;
}

/** Whether skill scripts run: as configured, or by default where the sandbox and a workspace are there. */
function scriptsMode(mode: 'sandbox' | 'off' | undefined, env: Env | undefined, warn: (line: string) => void): boolean {
  if (mode === 'off') return false;
  const workspace = env instanceof HostEnv;
  const bwrap = findBwrap() !== undefined;
  if (mode === 'sandbox') {
    if (!workspace)
      throw new AppError(
        "skills.scripts: sandbox runs scripts in the run's workspace: give one (--workspace " +
          '<dir>, or env: { type: host, root } in the config)',
      );
    if (!bwrap)
      warn(
        "warning: skills.scripts: sandbox without bubblewrap: Node scripts run under Node's " +
          'permission model alone (no network isolation), Python and shell scripts are refused; ' +
          'install bubblewrap for the full sandbox\n',
      );
    return true;
  }
  if (!workspace) return false;
  if (!bwrap)
    warn(
      'skills: scripts are off: bubblewrap is not installed here (apt-get install bubblewrap), ' +
        'so they cannot run in the full sandbox; skills.scripts: sandbox runs Node scripts without ' +
        'it\n',
    );
  return bwrap;
}
