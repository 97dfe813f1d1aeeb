import { Command } from 'commander';
import { ioOf } from '../io.js';
import type { WorkflowCheckFlags, WorkflowRunFlags } from './command-flags.js';
import { positiveInt, varArg } from '../option-parsers.js';
import { withOtelOptions } from '../otel-options.js';

/** `qitos workflow run|resume|fork|check`: runs or checks a workflow file (docs/workflow.md). */
export function registerWorkflowCommand(program: Command): void {
  const workflow = new Command('workflow').description('run or check a workflow file (nodes and edges in YAML)');
  withOtelOptions(
    workflow
      .command('run')
      .description('run a workflow on the qitos engine and write a trace')
      .argument('<flow.yaml>', 'the workflow file')
      .option(
        '--var <key=value>',
        "a variable of the run, over the file's vars (repeatable; key:=<json> for a number, list or object)",
        varArg,
        {},
      )
      .option(
        '-m, --model <provider:model>',
        'model of the LLM nodes, e.g. openai:gpt-4o-mini or scripted:replies.json',
      )
      .option('--tools <module>', '.ts or .js module whose exported tools (or arrays of tools) join the built-in ones')
      .option('-c, --config <file.yaml>', 'config file (flags override it)')
      .option('--trace-dir <dir>', 'folder for traces (default: traces)'),
  )
    .option('--max-steps <n>', 'step budget (every node step and every LLM turn is a step)', positiveInt)
    .option('-w, --workspace <dir>', 'workspace folder for the file and shell tools (a jailed host env)')
    .option('--json', 'print the result as JSON')
    .addHelpText(
      'after',
      '\nExample:\n  $ qitos workflow run examples/workflows/tool-pipeline.yaml --var n=7\n  $ ' +
        'qitos workflow run flow.yaml --var topic=cats --model scripted:replies.json --json\n',
    )
    .action(async function (this: Command, file: string, flags: WorkflowRunFlags) {
      const { workflowRunAction } = await import('./workflow-action.js');
      await workflowRunAction(ioOf(this), file, flags);
    });
  workflow
    .command('resume')
    .description('resume a workflow run from its trace, after the last completed node (a new linked run)')
    .argument('<trace>', 'the trace folder of the run to resume')
    .argument('<flow.yaml>', 'the workflow file the run ran (it must be unchanged)')
    .option(
      '--var <key=value>',
      'a variable to set before going on, e.g. the answer of a waiting interrupt (repeatable; key:=<json> for JSON)',
      varArg,
      {},
    )
    .option('-m, --model <provider:model>', 'model of the LLM nodes, e.g. openai:gpt-4o-mini or scripted:replies.json')
    .option('--tools <module>', '.ts or .js module whose exported tools (or arrays of tools) join the built-in ones')
    .option('-c, --config <file.yaml>', 'config file (flags override it)')
    .option('--trace-dir <dir>', 'folder for traces (default: traces)')
    .option('-w, --workspace <dir>', 'workspace folder for the file and shell tools (a jailed host env)')
    .option('--allow-changed', 'resume even though the workflow file differs from the one the run recorded')
    .option('--approve', 'answer the permission ask the run waits on: run the call')
    .option(
      '--reject [message]',
      'answer the permission ask the run waits on: refuse the call (the message is shown to the agent)',
    )
    .option('--json', 'print the result as JSON')
    .addHelpText(
      'after',
      '\nExample:\n  $ qitos workflow resume traces/20260101T000000-abc flow.yaml --var approved=yes\n',
    )
    .action(async function (this: Command, trace: string, file: string, flags: WorkflowRunFlags) {
      const { workflowResumeAction } = await import('./workflow-action.js');
      await workflowResumeAction(ioOf(this), trace, file, flags);
    });
  workflow
    .command('fork')
    .description('re-run a recorded workflow run from a node, with changed variables or model (a new linked run)')
    .argument('<trace>', 'the trace folder of the run to fork')
    .argument('<flow.yaml>', 'the workflow file the run ran')
    .requiredOption('--at <node[@visit]>', 'the node to re-run from (its first visit, or the n-th with @n)')
    .option(
      '--var <key=value>',
      'a variable to set before the node runs (repeatable; key:=<json> for JSON)',
      varArg,
      {},
    )
    .option('-m, --model <provider:model>', 'model of the LLM nodes, e.g. openai:gpt-4o-mini or scripted:replies.json')
    .option('--tools <module>', '.ts or .js module whose exported tools (or arrays of tools) join the built-in ones')
    .option('-c, --config <file.yaml>', 'config file (flags override it)')
    .option('--trace-dir <dir>', 'folder for traces (default: traces)')
    .option('-w, --workspace <dir>', 'workspace folder for the file and shell tools (a jailed host env)')
    .option('--allow-changed', 'fork even though the workflow file differs from the one the run recorded')
    .option('--json', 'print the result as JSON')
    .addHelpText(
      'after',
      '\nExample:\n  $ qitos workflow fork traces/20260101T000000-abc flow.yaml --at describe --var value=64 --model openai:gpt-4o-mini\n',
    )
    .action(async function (this: Command, trace: string, file: string, flags: WorkflowRunFlags & { at: string }) {
      const { workflowForkAction } = await import('./workflow-action.js');
      await workflowForkAction(ioOf(this), trace, file, flags);
    });
  workflow
    .command('check')
    .description('check a workflow file: node configs, edges, reachability, forks and joins, loop bounds')
    .argument('<flow.yaml>', 'the workflow file')
    .option('--json', 'print the result as JSON')
    .addHelpText('after', '\nExample:\n  $ qitos workflow check examples/workflows/tool-pipeline.yaml\n')
    .action(async function (this: Command, file: string, flags: WorkflowCheckFlags) {
      const { workflowCheckAction } = await import('./workflow-action.js');
      await workflowCheckAction(ioOf(this), file, flags);
    });
  program.addCommand(workflow);
}
