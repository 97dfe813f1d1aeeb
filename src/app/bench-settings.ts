/** What a bench run's settings are made of (`bench run` and every cell of `bench sweep`). */
export interface BenchSettingsFlags {
  agent?: string;
  export?: string;
  model?: string;
  config?: string;
  maxSteps?: number;
  /** `--set key=value`s (see ConfigFlags.set). */
  set?: string[];
  /** Approve every permission ask; without it a bench run refuses them (no one is there to answer). */
  auto?: boolean;
  /** `--otel <endpoint>` and `--otel-content` (see ConfigFlags). */
  otel?: string;
  otelContent?: boolean;
}

/** The tau-bench flags of `bench run` and `bench sweep` (`tau-bench/<domain>`): the split, the tasks, the customer, the data. */
export interface TauBenchFlags {
  split?: string;
  taskIds?: string;
  userModel?: string;
  userStrategy?: string;
  dataDir?: string;
}
