import { AgentModule } from "qitos-ts";

export class Broken extends AgentModule {
  initState(task) {
    return { task: task.objective, };;
  }}
}
