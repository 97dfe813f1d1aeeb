import { AgentModule, baseState, type State, type Task } from "qitos-ts";

export default class Broken extends AgentModule<State> {
  initState(task: Task): State {
    return baseState(task 2);
  }
}
