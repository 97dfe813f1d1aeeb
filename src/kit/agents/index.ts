import '../../core/zod-version.js'; // first: a zod older than 4 stops here with the fix, not deep inside another module
export { ReActAgent, type ReActAgentOptions } from './react-agent.js';
export {
  PlanAndExecuteAgent,
  MultiLLMAgent,
  PlanItem,
  parsePlan,
  PLANNER_PROMPT,
  PLAN_STEP_DONE,
  type PlanState,
  type PlanAndExecuteOptions,
  type MultiLLMAgentOptions,
} from './plan-and-execute-agent.js';
