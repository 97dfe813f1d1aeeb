import { z } from 'zod';
import { defineTool, type Tool } from '../../core/index.js';
import { HostEnv, SkillsSandboxExecutor } from '../../envs/index.js';
import { truncateOutput } from '../tools/index.js';
import { unknownSkillMessage, type SkillCatalog } from './skill-catalog.js';

const parameters = z.object({
  name: z.string().describe('The skill whose script to run.'),
  script: z
    .string()
    .optional()
    .describe(
      'The script, as a path in the skill folder such as "scripts/convert.py", or its file name in scripts/ (default: scripts/execute.*).',
    ),
  args: z
    .record(z.string(), z.unknown())
    .optional()
    .describe('Arguments for the script; it reads them as JSON from its standard input.'),
});

/** Options of the `run_skill_script` tool. */
export interface SkillScriptToolOptions {
  /** Runs the scripts (default: a SkillsSandboxExecutor with its defaults). */
  executor?: SkillsSandboxExecutor;
  /** The folder scripts may write in and run from (default: the run's HostEnv workspace). */
  workspace?: string;
}

/**
 * The `run_skill_script` tool (sandbox mode): runs one of a skill's scripts (`scripts/*.mjs|js|cjs|py|sh`) in the
 * SkillsSandboxExecutor's sandbox, with `args` as JSON on stdin, and returns what it printed (pretty JSON when it
 * printed JSON). A failing, timed-out or sandbox-refused script is an error result that says why. When the
 * sandbox lacks a layer (no bubblewrap), the output says so. The workspace is the run's HostEnv root unless
 * `workspace` is given; without either the tool needs the `file` op group and says it has no workspace.
 */
export function skillScriptTool(catalog: SkillCatalog, options: SkillScriptToolOptions = {}): Tool<typeof parameters> {
  const executor = options.executor ?? new SkillsSandboxExecutor();
  return defineTool({
    id: 'run_skill_script',
    description:
      'Run a script of a skill in a sandbox: it sees only the skill folder (read-only) and the workspace (read-write), ' +
      'has no network and no other processes, and is stopped after its time limit. Load the skill first (skill tool) ' +
      'to learn its scripts and their arguments.',
    parameters,
    requires: options.workspace ? [] : ['file'],
    async execute({ name, script, args }, ctx) {
      const skill = catalog.get(name);
      if (!skill) throw new Error(unknownSkillMessage(catalog, name));
      const workspace = options.workspace ?? (ctx.env instanceof HostEnv ? ctx.env.root : undefined);
      if (!workspace)
        throw new Error(`run_skill_script needs a workspace folder on disk; the run's env "${ctx.env.name}" has none`);
      const r = await executor.run({ skillDir: skill.dir, script, args, workspace, signal: ctx.signal });
      const note = r.sandbox.missing.length ? `\n[sandbox incomplete: ${r.sandbox.missing.join('; ')}]` : '';
      if (!r.ok) throw new Error(`${r.error}${note}`);
      const text = typeof r.output === 'string' ? r.output : JSON.stringify(r.output, null, 2);
      const t = truncateOutput(text || '(the script printed nothing)', 'The whole output is in the trace.');
      return {
        output: t.output + note,
        title: `${skill.name}/${script ?? 'scripts/execute'}`,
        metadata: {
          skill: skill.name,
          script: script ?? null,
          exitCode: r.exitCode,
          durationMs: r.durationMs,
          sandbox: r.sandbox,
        },
        ...(t.full ? { full: t.full } : {}),
      };
    },
  });
}
