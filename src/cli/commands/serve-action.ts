import { resolve } from 'node:path';
import { SkillManager } from '../../kit/skills/index.js';
import { ApprovalQueue } from '../../engine/approval-queue.js';
import { AppError } from '../../app/app-error.js';
import { effectiveConfig } from '../../app/effective-config.js';
import { withTelemetry } from '../../app/telemetry-setup.js';
import type { CliIO } from '../io.js';
import { withMcp } from '../../app/mcp-setup.js';
import { servedAgentClass, servedAgents, traceRoot } from '../../app/served-agents.js';
import { startServer } from '../../server/start-server.js';
import type { ServeFlags } from './command-flags.js';
import { stopSignal } from '../stop-signal.js';

/** The environment variable holding the bearer token (a flag would show in `ps`). */
export const TOKEN_ENV = 'QITOS_SERVE_TOKEN';

/** The Host names and connection limits of `qitos serve` and `qitos mcp serve --http`, as server options. */
export function connectionFlags(
  flags: Pick<ServeFlags, 'allowedHost' | 'maxConnections' | 'headersTimeout' | 'requestTimeout'>,
) {
  return {
    ...(flags.allowedHost?.length ? { allowedHosts: flags.allowedHost } : {}),
    ...(flags.maxConnections ? { maxConnections: flags.maxConnections } : {}),
    ...(flags.headersTimeout ? { headersTimeoutMs: flags.headersTimeout } : {}),
    ...(flags.requestTimeout ? { requestTimeoutMs: flags.requestTimeout } : {}),
  };
}

/** What `qitos serve` does: builds the agents, listens, and on SIGTERM or SIGINT shuts down gracefully. */
export async function serveAction(io: CliIO, flags: ServeFlags): Promise<void> {
  let config = await effectiveConfig({}, flags, io.cwd);
  const skillsRoot = flags.skillsRoot ? resolve(io.cwd, flags.skillsRoot) : undefined;
  if (skillsRoot)
    config = { ...config, skills: { ...config.skills, roots: [...(config.skills?.roots ?? []), skillsRoot] } };
  const { loaded, name } = await servedAgentClass(io, flags.agent, flags.export, flags.name);
  const skills = skillsRoot
    ? await SkillManager.open(skillsRoot).catch((err: Error) => {
        throw new AppError(`--skills-root: ${err.message}`);
      })
    : undefined;
  const token = io.env[TOKEN_ENV] || undefined;
  await withTelemetry(io, config, (tap) =>
    withMcp(config, io, async (mcp) => {
      // The served runs' permission asks wait here, answered through /v1/runs/:id/approvals.
      const approvals = new ApprovalQueue('server');
      const agents = await servedAgents(io, loaded, name, config, flags.serveModel, mcp, approvals, tap);
      const server = await startServer({
        agents,
        ...(token ? { token } : {}),
        host: flags.host,
        port: flags.port,
        traceDir: traceRoot(io, config),
        ...(flags.maxRuns ? { maxRuns: flags.maxRuns } : {}),
        ...(skills ? { skills } : {}),
        approvals,
        ...connectionFlags(flags),
        ...(io.redactor ? { redactor: io.redactor.add(token) } : {}),
      }).catch((err: Error) => {
        throw new AppError(err.message);
      });
      // one write: a reader that waits for the "listening" line gets the token line with it
      io.out(
        `qitos serve: listening on ${server.url}  agents: ${agents.map((a) => a.id).join(', ')}\nqitos serve: ${server.authNote}\n`,
      );
      const signal = await stopSignal();
      io.out(`qitos serve: ${signal}: finishing ${server.runs.active} run(s) (10 s), then interrupting them\n`);
      await server.close();
      io.out('qitos serve: stopped; traces flushed\n');
    }),
  );
}
