import { USER_GREETING, llmUserSystemPrompt } from './user-prompts.js';
import type { AskUserModel, UserSimulator, UserTurn } from './user-simulator.js';

/**
 * Strategy `llm` (`LLMUserSimulationEnv` of tau-bench's `tau_bench/envs/user.py`, MIT, Copyright (c) 2024 Sierra):
 * one model call per customer message, over the whole flipped conversation. The base of the other strategies.
 */
export class LlmUser implements UserSimulator {
  readonly strategy: string = 'llm';
  messages: UserTurn[] = [];

  /** The system prompt for an instruction. */
  protected systemPrompt(instruction: string): string {
    return llmUserSystemPrompt(instruction);
  }

  async reset(instruction: string, ask: AskUserModel): Promise<string> {
    this.messages = [
      { role: 'system', content: this.systemPrompt(instruction) },
      { role: 'user', content: USER_GREETING },
    ];
    return this.generate(this.messages, ask);
  }

  async step(content: string, ask: AskUserModel): Promise<string> {
    this.messages.push({ role: 'user', content });
    return this.generate(this.messages, ask);
  }

  /**
   * The customer's next message for `messages` (the conversation, or a variant of it a strategy built); the reply
   * joins `this.messages` whatever `messages` was, as in the original.
   */
  protected async generate(messages: readonly UserTurn[], ask: AskUserModel): Promise<string> {
    const content = await ask([...messages], 'reply');
    this.messages.push({ role: 'assistant', content });
    return content;
  }
}
