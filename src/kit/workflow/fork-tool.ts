import { setMaxListeners } from 'node:events';
import { z } from 'zod';
import type { Budget, Usage } from '../../core/index.js';
import { addCost, addTokens, defineTool, errorMessage, totalTokens } from '../../core/index.js';
import { forEachConcurrent } from '../../engine/for-each-concurrent.js';
import { changedVars, runChildThread, type ThreadHost } from './child-thread.js';
import { previousThread, resumeSourceOf } from './previous-thread.js';
import type { BranchOutcome, WorkflowState } from './thread-state.js';

/** The id of the internal tool a fork node's step calls (never offered to a model). */
export const FORK_TOOL = '_workflow_fork';

/** Its arguments, built once: every child thread's agent registers the tool anew, and building a zod schema per agent was
 * most of the cost of making a branch's agent. */
const ForkArgs = z.object({ fork: z.string() });

/**
 * The tool through which a fork node runs its branches: each edge out of the fork is a child thread from that
 * node to the fork's join, run concurrently as linked child runs. A failed branch follows the fork's `onError`:
 * `retry` runs it again up to `retries` times, then fails; `continue` leaves it out of the join; `fail` fails
 * the fork (after every branch has ended, so no child run is left behind). With `budget: split` (the default)
 * each branch gets an equal part of what is left of the run's token and cost budget.
 */
export function forkTool(agent: ThreadHost) {
  return defineTool({
    id: FORK_TOOL,
    description: 'Runs the branches of a workflow fork node (internal).',
    parameters: ForkArgs,
    async execute(args, ctx) {
      const wf = agent.workflow;
      const fork = wf.node(args.fork);
      if (fork.kind !== 'fork') throw new Error(`node "${args.fork}" is not a fork`);
      const join = [...wf.nodes.values()].find((n) => n.kind === 'join' && n.fork === fork.id)!;
      const thread = (ctx.state as WorkflowState).thread;
      const vars = thread.vars;
      const branches = wf.successors(fork.id);
      const outcomes: BranchOutcome[] = new Array(branches.length);
      let finished = 0;
      const tries = fork.onError.mode === 'retry' ? fork.onError.retries + 1 : 1;
      // A resumed run reuses the branches its predecessor finished and resumes the one it was killed in.
      const source = agent.resumeSource(fork.id, thread);
      const share = fork.budget === 'split' ? splitBudget(ctx.childLink().budget, branches.length) : undefined;
      const concurrency = fork.concurrency ?? branches.length;
      // Each branch in flight is a child run listening to this signal: a wide fork is expected, not a leak.
      setMaxListeners(Math.max(10, concurrency + 10), ctx.signal);
      await forEachConcurrent(branches, concurrency, async (branch, i) => {
        let last: Omit<BranchOutcome, 'finished'> | undefined;
        const prev = source ? await previousThread(source, `${fork.id}.${branch}`) : undefined;
        if (prev?.outcome === 'completed') {
          outcomes[i] = {
            branch,
            status: 'done',
            vars: changedVars(vars, prev.vars),
            runId: prev.runId,
            traceDir: prev.traceDir,
            attempts: 1,
            reused: true,
            finished: finished++,
          };
          return;
        }
        let spent: Usage | undefined;
        for (let attempt = 1; attempt <= tries && !ctx.signal.aborted; attempt++) {
          // the step in the id keeps the threads of a fork visited twice (in a loop) apart
          const runId = `${ctx.runId}.s${ctx.step}.${fork.id}.${branch}${attempt > 1 ? `.${attempt}` : ''}`;
          const resume = attempt === 1 && prev?.outcome === 'resume' ? prev : undefined;
          try {
            const nested = resume ? resumeSourceOf(resume) : undefined;
            const child = agent.childAgent({
              entry: branch,
              stopAt: join.id,
              ...(nested ? { resumeOf: nested } : {}),
              thread: { fork: fork.id, branch, attempt, ...(resume ? { resumes: resume.runId } : {}) },
            });
            const budget = share && remainingShare(share, spent);
            const r = await runChildThread(child, ctx, {
              runId,
              objective: `branch ${branch} of fork ${fork.id}`,
              vars,
              ...(resume ? { resumeFrom: { state: resume.state, step: resume.step } } : {}),
              ...(budget ? { budget } : {}),
            });
            spent = spent
              ? {
                  tokens: addTokens(spent.tokens, r.usage.tokens),
                  cost: addCost(spent.cost, r.usage.cost),
                  modelCalls: spent.modelCalls + r.usage.modelCalls,
                }
              : r.usage;
            const thread = r.state?.thread;
            if (r.stopReason === 'final' && thread?.status === 'completed') {
              last = {
                branch,
                status: 'done',
                vars: changedVars(vars, thread.vars),
                runId: r.runId,
                traceDir: r.traceDir,
                attempts: attempt,
              };
              break;
            }
            last = {
              branch,
              status: 'error',
              vars: {},
              error: thread?.reason ?? `${r.stopReason}: ${r.stopMessage}`,
              runId: r.runId,
              traceDir: r.traceDir,
              attempts: attempt,
            };
          } catch (err) {
            last = {
              branch,
              status: 'error',
              vars: {},
              error: errorMessage(err),
              runId,
              traceDir: null,
              attempts: attempt,
            };
          }
        }
        outcomes[i] = { ...last!, finished: finished++ };
      });
      const failed = outcomes.filter((o) => o.status === 'error');
      if (failed.length && fork.onError.mode !== 'continue') {
        throw new Error(
          `fork ` +
            `"${fork.id}": ${failed.map((f) => `branch "${f.branch}" failed after ${f.attempts} attempt${f.attempts === 1 ? '' : 's'}: ${f.error}`).join('; ')}`,
        );
      }
      return {
        output: JSON.stringify(outcomes),
        title: `fork ${fork.id}`,
        metadata: {
          branches: outcomes.map((o) => ({ branch: o.branch, status: o.status, runId: o.runId, traceDir: o.traceDir })),
        },
      };
    },
  });
}

/** Each of `n` branches' equal part of what is left of the run's token and cost budget (undefined: nothing to split). */
function splitBudget(left: Budget | undefined, n: number): Budget | undefined {
  const out: Budget = {};
  if (left?.maxTokens !== undefined) out.maxTokens = Math.max(1, Math.floor(left.maxTokens / n));
  if (left?.maxCost !== undefined) out.maxCost = Math.max(1e-9, left.maxCost / n);
  return Object.keys(out).length ? out : undefined;
}

/** What is left of a branch's part after its earlier attempts. */
function remainingShare(share: Budget, spent: Usage | undefined): Budget {
  if (!spent) return share;
  const out: Budget = {};
  if (share.maxTokens !== undefined) out.maxTokens = Math.max(1, share.maxTokens - totalTokens(spent.tokens));
  if (share.maxCost !== undefined) out.maxCost = Math.max(1e-9, share.maxCost - (spent.cost ?? 0));
  return out;
}
