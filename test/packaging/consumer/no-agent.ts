// Exports a helper, not an AgentModule subclass.
export const helper = (x: number): number => x + 1;
