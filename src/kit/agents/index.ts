export { ReActAgent, type ReActAgentOptions } from './react-agent.js';
