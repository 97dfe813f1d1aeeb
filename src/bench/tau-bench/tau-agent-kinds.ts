/** The built-in agents: the original's baselines (`tool-calling`, `react`, `act`) and the `ground-truth` sanity check. */
export const TAU_AGENTS = ['tool-calling', 'react', 'act', 'ground-truth'] as const;
export type TauAgentKind = (typeof TAU_AGENTS)[number];

/** Whether a string names a built-in tau agent. */
export function isTauAgentKind(name: string): name is TauAgentKind {
  return (TAU_AGENTS as readonly string[]).includes(name);
}
