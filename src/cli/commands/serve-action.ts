import { basename, extname, resolve } from 'node:path';
import type { State } from '../../core/index.js';
import type { Engine } from '../../engine/engine.js';
import { ReActAgent } from '../../kit/agents/index.js';
import { SkillManager } from '../../kit/skills/index.js';
import { calculateTool, datetimeTool } from '../../kit/tools/index.js';
import { loadAgent, type LoadedAgent } from '../agent-loader.js';
import { CliError } from '../cli-error.js';
import { effectiveConfig } from '../effective-config.js';
import type { CliIO } from '../io.js';
import { withMcp } from '../mcp-setup.js';
import { resolveModel } from '../model-resolver.js';
import { buildAgent, buildEngine, configuredModel } from '../run-setup.js';
import type { QitosConfig } from '../config-schema.js';
import { startServer } from '../server/start-server.js';
import type { ServedAgent } from '../server/serve-options.js';
import type { ServeFlags } from './command-flags.js';
import type { McpManager } from '../../kit/mcp/mcp-manager.js';

/** The environment variable holding the bearer token (a flag would show in `ps`). */
export const TOKEN_ENV = 'QITOS_SERVE_TOKEN';

/** What `qitos serve` does: builds the agents, listens, and on SIGTERM or SIGINT shuts down gracefully. */
export async function serveAction(io: CliIO, flags: ServeFlags): Promise<void> {
  let config = await effectiveConfig({}, flags, io.cwd);
  const skillsRoot = flags.skillsRoot ? resolve(io.cwd, flags.skillsRoot) : undefined;
  if (skillsRoot) config = { ...config, skills: { ...config.skills, roots: [...(config.skills?.roots ?? []), skillsRoot] } };
  const loaded = flags.agent === 'react' ? reactLoaded() : await loadAgent(flags.agent, flags.export, io.cwd);
  const name = flags.name ?? (flags.agent === 'react' ? 'react' : basename(flags.agent, extname(flags.agent)));
  const skills = skillsRoot ? await SkillManager.open(skillsRoot).catch((err: Error) => { throw new CliError(`--skills-root: ${err.message}`); }) : undefined;
  const token = io.env[TOKEN_ENV] || undefined;
  await withMcp(config, io, async (mcp) => {
    const agents: ServedAgent[] = [{ id: name, engine: await engineFor(loaded, config, await configuredModel(config, io.cwd, io.env), io, mcp) }];
    for (const id of flags.serveModel) {
      const model = await resolveModel({ id }, io.cwd, io.env);
      agents.push({ id: `${name}@${id}`, engine: await engineFor(loaded, { ...config, model: { ...config.model, id } }, model, io, mcp) });
    }
    const server = await startServer({
      agents,
      ...(token ? { token } : {}),
      host: flags.host,
      port: flags.port,
      traceDir: resolve(io.cwd, config.trace?.dir ?? 'traces'),
      ...(flags.maxRuns ? { maxRuns: flags.maxRuns } : {}),
      ...(skills ? { skills } : {}),
    }).catch((err: Error) => {
      throw new CliError(err.message);
    });
    io.out(`qitos serve: listening on ${server.url}  agents: ${agents.map((a) => a.id).join(', ')}\n`);
    io.out(`qitos serve: ${server.authNote}\n`);
    const signal = await new Promise<string>((done) => {
      const on = (sig: string) => {
        process.off('SIGTERM', on);
        process.off('SIGINT', on);
        done(sig);
      };
      process.on('SIGTERM', on);
      process.on('SIGINT', on);
    });
    io.out(`qitos serve: ${signal}: finishing ${server.runs.active} run(s) (10 s), then interrupting them\n`);
    await server.close();
    io.out('qitos serve: stopped; traces flushed\n');
  });
}

/** One agent and its engine; the server handles stop signals itself, so the engine does not. */
async function engineFor(loaded: LoadedAgent, config: QitosConfig, model: Awaited<ReturnType<typeof configuredModel>>, io: CliIO, mcp: McpManager | undefined): Promise<Engine<State>> {
  const agent = buildAgent(loaded, config, model);
  if (!agent.model) throw new CliError(`the agent has no model: give --model <provider:model> (or model.id in the config)`);
  return buildEngine({ agent, loaded, config, cwd: io.cwd, warn: (l) => io.err(l), handleSigint: false, ...(mcp ? { mcp } : {}) });
}

/** The built-in ReActAgent with the side-effect-free tools (calculate, datetime); skills and MCP tools join from the config. */
function reactLoaded(): LoadedAgent {
  class ServedReAct extends ReActAgent {
    constructor(options: ConstructorParameters<typeof ReActAgent>[0] = {}) {
      super({ ...options, tools: [calculateTool(), datetimeTool()] });
    }
  }
  return { AgentClass: ServedReAct as unknown as LoadedAgent['AgentClass'], module: 'qitos-ts/agents', export: 'ReActAgent', absPath: '' };
}

