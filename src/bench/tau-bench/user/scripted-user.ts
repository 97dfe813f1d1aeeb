import { STOP_TOKEN } from './user-prompts.js';
import type { AskUserModel, UserSimulator, UserTurn } from './user-simulator.js';

/**
 * A customer that says fixed lines in order and never calls a model (tests, and the ground-truth agent's sanity
 * runs). `reset` returns the first line; each `step` the next; when the lines run out it says `###STOP###`.
 * By default (no lines) it states the task's instruction, then stops.
 */
export class ScriptedUser implements UserSimulator {
  readonly strategy = 'scripted';
  messages: UserTurn[] = [];
  private next = 0;

  constructor(private readonly lines?: readonly string[]) {}

  async reset(instruction: string, _ask?: AskUserModel): Promise<string> {
    this.next = 0;
    this.messages = [{ role: 'user', content: 'Hi! How can I help you today?' }];
    return this.say(this.lines ? this.lines[this.next++] : instruction);
  }

  async step(content: string, _ask?: AskUserModel): Promise<string> {
    this.messages.push({ role: 'user', content });
    return this.say(this.lines ? this.lines[this.next++] : undefined);
  }

  private say(line: string | undefined): string {
    const content = line ?? STOP_TOKEN;
    this.messages.push({ role: 'assistant', content });
    return content;
  }
}
