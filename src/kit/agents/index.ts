import '../../core/zod-version.js'; // first: a zod older than 4 stops here with the fix, not deep inside another module
export { ReActAgent, type ReActAgentOptions } from './react-agent.js';
