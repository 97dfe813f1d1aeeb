import { z } from 'zod';
import { defineTool, type ToolContext } from '../../core/index.js';
import type { RepoOps } from '../../envs/repo-env.js';
import { toolError } from './tool-env.js';
import { truncateOutput, type OutputLimits } from './truncate-output.js';

/** The env's `repo` ops, or a tool error naming the tool and the missing group. */
function repoOpsOf(ctx: ToolContext, tool: string): RepoOps {
  const ops = ctx.env.ops('repo') as RepoOps | undefined;
  if (!ops || typeof ops.diff !== 'function')
    throw toolError(`tool "${tool}" needs the "repo" op group (a RepoEnv), and env "${ctx.env.name}" has none`);
  return ops;
}

/**
 * `repo_diff`: the agent's changes to the repository so far, against the commit the task started from: the list of
 * changed files, then the patch (or only the file list, with `stat`). Needs a RepoEnv (`repo` op group).
 */
export function repoDiffTool(options: { limits?: OutputLimits } = {}) {
  return defineTool({
    id: 'repo_diff',
    description:
      'Show your changes to the repository so far, against the commit the task started from: ' +
      'the changed files (added, modified, deleted, renamed), then the unified diff. ' +
      'Use it to review your work before you answer.',
    parameters: z.object({
      stat: z.boolean().optional().describe('Only the list of changed files, without the diff (default false).'),
    }),
    requires: ['repo'],
    async execute(args, ctx) {
      const d = await repoOpsOf(ctx, 'repo_diff').diff({ signal: ctx.signal });
      const short = d.baseCommit.slice(0, 12);
      if (!d.files.length)
        return {
          output: `No changes against the base commit ${short}.`,
          title: 'no changes',
          metadata: { baseCommit: d.baseCommit, files: 0 },
        };
      const list = d.files.map((f) => `${f.status.padEnd(12)} ${f.from ? `${f.from} -> ` : ''}${f.path}`).join('\n');
      const head = `${d.files.length} changed file${d.files.length === 1 ? '' : 's'} against ${short}:\n${list}`;
      const body = args.stat
        ? head
        : `${head}\n\n${d.patch}${d.truncated ? '\n[the diff is larger than the env keeps; this is its start]' : ''}`;
      const t = truncateOutput(
        body,
        'Ask with stat: true for the file list, and read files you want to see in full.',
        options.limits,
      );
      return {
        output: t.output,
        ...(t.full !== undefined ? { full: t.full } : {}),
        title: `${d.files.length} changed`,
        metadata: { baseCommit: d.baseCommit, files: d.files.length, truncated: d.truncated || t.truncated },
      };
    },
  });
}
