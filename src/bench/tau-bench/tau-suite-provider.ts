import type { SuiteProvider } from '../suite-provider.js';

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
    open: async (name, options, cwd) => (await import('./tau-suite-run.js')).openTauSuite(name, options, cwd),
  };
}
