import { basename, extname, resolve } from 'node:path';
import type { State, TraceTap } from '../core/index.js';
import { AgentModule } from '../engine/agent-module.js';
import type { Engine } from '../engine/engine.js';
import type { ApprovalQueue } from '../engine/approval-queue.js';
import { ReActAgent } from '../kit/agents/index.js';
import type { McpManager } from '../kit/mcp/mcp-manager.js';
import { calculateTool, datetimeTool } from '../kit/tools/index.js';
import { loadTraceKey } from '../trace/trace-key.js';
import { loadAgent, type LoadedAgent } from './agent-loader.js';
import { AppError } from './app-error.js';
import type { QitosConfig } from './config-schema.js';
import { withModel } from './effective-config.js';
import type { AppIO } from './app-io.js';
import { buildAgent, buildEngine, configuredModel } from './build-engine.js';

/** One agent the server offers: `id` is what a request's `model` names (and GET /v1/models lists). */
export interface ServedAgent {
  id: string;
  engine: Engine<State>;
}

/** The agent of `--agent <module|react>` and the id clients name it by (`--name`, else "react" or the file name). */
export async function servedAgentClass(
  io: AppIO,
  agent: string,
  exportName: string | undefined,
  name: string | undefined,
): Promise<{ loaded: LoadedAgent; name: string }> {
  const loaded = agent === 'react' ? reactLoaded() : await loadAgent(agent, exportName, io.cwd);
  return { loaded, name: name ?? (agent === 'react' ? 'react' : basename(agent, extname(agent))) };
}

/** The agent on the config's model as `name`, and on each of `extraModels` as `<name>@<provider:model>`. */
export async function servedAgents(
  io: AppIO,
  loaded: LoadedAgent,
  name: string,
  config: QitosConfig,
  extraModels: string[],
  mcp: McpManager | undefined,
  approvals?: ApprovalQueue,
  tap?: TraceTap,
): Promise<ServedAgent[]> {
  // The server's runs are this machine's: signed, so `qitos replay` of them needs no flag.
  const signingKey = await loadTraceKey(io.env, { create: true });
  const agents: ServedAgent[] = [
    {
      id: name,
      engine: await engineFor(
        loaded,
        config,
        await configuredModel(config, io.cwd, io.env),
        io,
        mcp,
        signingKey,
        approvals,
        tap,
      ),
    },
  ];
  for (const id of extraModels) {
    // As with --model and --set model=: the config's provider options (base URL, apiKeyEnv) stay for the same provider.
    const served = withModel(config, id);
    agents.push({
      id: `${name}@${id}`,
      engine: await engineFor(
        loaded,
        served,
        await configuredModel(served, io.cwd, io.env),
        io,
        mcp,
        signingKey,
        approvals,
        tap,
      ),
    });
  }
  return agents;
}

/** The trace folder of the config, absolute. */
export function traceRoot(io: AppIO, config: QitosConfig): string {
  return resolve(io.cwd, config.trace?.dir ?? 'traces');
}

/** One agent and its engine; the server handles stop signals itself, so the engine does not. */
async function engineFor(
  loaded: LoadedAgent,
  config: QitosConfig,
  model: Awaited<ReturnType<typeof configuredModel>>,
  io: AppIO,
  mcp: McpManager | undefined,
  signingKey: Uint8Array | undefined,
  approvals: ApprovalQueue | undefined,
  tap?: TraceTap,
): Promise<Engine<State>> {
  const agent = buildAgent(loaded, config, model);
  // An agent whose decide() returns its Decisions in code needs no model (qitos run runs it too); one that leaves
  // DECIDE to the model path would fail at its first request, so that is said at start.
  if (!agent.model && agent.decide === AgentModule.prototype.decide) {
    throw new AppError(
      `the agent takes the model path (it does not override decide) but has no model: give ` +
        `--model <provider:model> (or model.id in the config)`,
    );
  }
  return buildEngine({
    agent,
    loaded,
    config,
    cwd: io.cwd,
    warn: (l) => io.err(l),
    handleSigint: false,
    signingKey,
    redactor: io.redactor,
    tap,
    ...(mcp ? { mcp } : {}),
    ...(approvals ? { onApproval: approvals.approver } : {}),
  });
}

/** The built-in ReActAgent with the side-effect-free tools (calculate, datetime); skills and MCP tools join from the config. */
function reactLoaded(): LoadedAgent {
  class ServedReAct extends ReActAgent {
    constructor(options: ConstructorParameters<typeof ReActAgent>[0] = {}) {
      super({ ...options, tools: [calculateTool(), datetimeTool()] });
    }
  }
  return {
    AgentClass: ServedReAct as unknown as LoadedAgent['AgentClass'],
    module: 'qitos-ts/agents',
    export: 'ReActAgent',
    absPath: '',
  };
}
