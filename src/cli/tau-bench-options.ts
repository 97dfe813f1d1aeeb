import type { Command } from 'commander';

/** Adds the tau-bench options of `bench run` and `bench sweep`: the split, the tasks, the customer, the data folder. */
export function withTauBenchOptions(command: Command): Command {
  return command
    .option('--split <name>', 'tau-bench: the task split (test, train, dev; default test)')
    .option('--task-ids <ids>', 'tau-bench: only these tasks, e.g. 0,3,10-19')
    .option('--user-model <provider:model>', "tau-bench: the simulated customer's model (default: --model)")
    .option(
      '--user-strategy <name>',
      "tau-bench: llm (default), react, verify, reflection or scripted (the ground-truth agent's default)",
    )
    .option(
      '--data-dir <dir>',
      'tau-bench: where `qitos tau-bench fetch` installed the data (default: $QITOS_TAU_BENCH_DATA or the cache)',
    );
}
