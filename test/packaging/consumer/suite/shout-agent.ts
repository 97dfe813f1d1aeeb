import { AgentModule, baseState, decide, type Decision, type State, type Task } from 'qitos-ts';

export default class Shout extends AgentModule<State> {
  initState(task: Task): State {
    return baseState(task, 2);
  }

  override decide(state: State): Decision {
    return decide.final(state.task.toUpperCase());
  }
}
