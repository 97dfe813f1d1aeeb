import type { SuiteProvider } from '../suite-provider.js';
import { isTauAgentKind } from './tau-agent-kinds.js';
import { TAU_BENCH_COMMIT } from './upstream-files.js';

/**
 * tau-bench as a suite provider: `qitos bench run tau-bench/airline | tau-bench/retail` with its split, tasks,
 * simulated customer and data folder. Light on purpose (the CLI reads it for `--help`); the port loads in `open`.
 */
export function tauBenchSuites(): SuiteProvider {
  return {
    name: 'tau-bench',
    description: "tau-bench's airline and retail domains (install the data with `qitos tau-bench fetch`)",
    suites: ['tau-bench/airline', 'tau-bench/retail'],
    recordKey: 'tau',
    agentHelp: 'tool-calling (default), react, act, ground-truth, or a module exporting createAgent(ctx)',
    examples: [
      'qitos bench run tau-bench/retail --model openai:gpt-4o --user-model openai:gpt-4o --trials 4 --agent tool-calling',
      'qitos bench run tau-bench/airline --agent ground-truth   # sanity check: reward 1.0 on every task',
    ],
    options: [
      {
        key: 'split',
        flag: '--split <name>',
        description: 'tau-bench: the task split (test, train, dev; default test)',
      },
      { key: 'taskIds', flag: '--task-ids <ids>', description: 'tau-bench: only these tasks, e.g. 0,3,10-19' },
      {
        key: 'userModel',
        flag: '--user-model <provider:model>',
        description: "tau-bench: the simulated customer's model (default: --model)",
      },
      {
        key: 'userStrategy',
        flag: '--user-strategy <name>',
        description:
          "tau-bench: llm (default), react, verify, reflection or scripted (the ground-truth agent's default)",
      },
      {
        key: 'dataDir',
        flag: '--data-dir <dir>',
        description:
          'tau-bench: where `qitos tau-bench fetch` installed the data (default: $QITOS_TAU_BENCH_DATA or the cache)',
      },
    ],
    reopen: (record) => {
      const text = (key: string) => (typeof record[key] === 'string' ? (record[key] as string) : undefined);
      const domain = text('domain');
      const agent = text('agent');
      if ((domain !== 'airline' && domain !== 'retail') || !agent)
        throw new Error('the recorded tau-bench settings name no domain (airline, retail) or agent');
      if (text('commit') !== TAU_BENCH_COMMIT)
        throw new Error(
          `the trial ran on tau-bench data at commit ${text('commit') ?? '(none)'}; this qitos-ts reads ${TAU_BENCH_COMMIT}`,
        );
      return {
        name: `tau-bench/${domain}`,
        options: { split: text('split'), userStrategy: text('userStrategy'), userModel: text('userModel') },
        agent,
        module: !isTauAgentKind(agent),
      };
    },
    open: async (name, options, cwd) => (await import('./tau-suite-run.js')).openTauSuite(name, options, cwd),
  };
}
