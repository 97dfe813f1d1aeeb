import type { Manifest } from '../core/index.js';
import type { QitosConfig } from './config-schema.js';
import { recordableConfig } from './mcp-setup.js';

/** Where an agent comes from, as a run records it. */
export interface AgentSource {
  module?: string | undefined;
  export?: string | undefined;
  sha256?: string | undefined;
}

/**
 * A run's effective settings as one object: the agent module (path, export, sha-256 of the file) under `module`,
 * then the config's sections (model, engine, policies, agent options, env, skills, mcp) as `--set` names them.
 * Where traces go (`trace`) is left out: it does not change what a run does. Bench run.json records this, resume
 * compares it, and `runs`/`inspect`/`bench compare` show how two runs' settings differ.
 */
export function runSettings(agent: AgentSource, config: QitosConfig): Record<string, unknown> {
  return settingsOf(agent, recordableConfig(config));
}

/**
 * The settings a trace's manifest records, in the shape of runSettings: its agent source, its effective config
 * (already recordable) and the `components` the run was built with (parser, tools, policies).
 */
export function manifestSettings(m: Manifest): Record<string, unknown> {
  return {
    ...settingsOf(m.agent, m.config ?? {}),
    components: { parser: m.parser, tools: m.tools, policies: m.policies },
  };
}

function settingsOf(agent: AgentSource, config: Record<string, unknown>): Record<string, unknown> {
  const { trace: _trace, ...rest } = config;
  const module = Object.fromEntries(
    Object.entries({ path: agent.module, export: agent.export, sha256: agent.sha256 }).filter(
      ([, v]) => v !== undefined,
    ),
  );
  return { ...(Object.keys(module).length ? { module } : {}), ...rest };
}
