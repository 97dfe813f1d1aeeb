// A plain JavaScript agent module: `qitos run agent.js` needs no TypeScript loader.
import { AgentModule, baseState, decide } from 'qitos-ts';

export class Echo extends AgentModule {
  initState(task) {
    return baseState(task, 2);
  }

  decide(state) {
    return decide.final(`echo ${state.task}`);
  }
}
