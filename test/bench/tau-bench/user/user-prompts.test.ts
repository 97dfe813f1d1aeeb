import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  llmUserSystemPrompt,
  reactUserSystemPrompt,
  reflectPrompt,
  verifyPrompt,
} from '../../../../src/bench/tau-bench/user/user-prompts.js';
import { ACT_INSTRUCTION, REACT_INSTRUCTION } from '../../../../src/bench/tau-bench/agents/react-prompts.js';

const sha = (s: string) => createHash('sha256').update(s, 'utf8').digest('hex');
// The transcript Python's verify()/reflect() build for [system SYS, user greeting, assistant "I want X"].
const transcript = 'System: SYS\nCustomer: Hi! How can I help you today?\nAgent: I want X';

// Hashes of the strings the original (tau-bench 59a200c) builds, computed by running its Python code with these inputs.
describe("tau-bench prompts are the original's byte for byte", () => {
  it('user simulator system prompts (llm, react; with and without an instruction)', () => {
    expect(sha(llmUserSystemPrompt('INSTR'))).toBe('2bf7376aff730d1e615a73f908c20560f9be03764dc1d44aeeb2a4f3eaf40741');
    expect(sha(llmUserSystemPrompt(undefined))).toBe(
      'e91c58ad775ec163b5268895820e52a1ee2945683f8e0cec29ada50ba260fef3',
    );
    expect(sha(reactUserSystemPrompt('INSTR'))).toBe(
      '2b1680fd89c6a87471fce070d659ff0801fc5fa6f65ab07b997c92f7859a0d26',
    );
  });

  it('the supervisor prompts of verify and reflection', () => {
    expect(sha(verifyPrompt(transcript, 'RESP'))).toBe(
      '19785a797bca04dce379e7b4d5fabc74a481ff4632328d7fbbf314d8b27166b6',
    );
    expect(sha(reflectPrompt(transcript, 'RESP'))).toBe(
      'dd5a1818b459a3a0f046a564f5fdd6550229de052edcc047e01cfba4e4059301',
    );
  });

  it('the ReAct and Act agent instructions', () => {
    expect(sha(REACT_INSTRUCTION)).toBe('55c63f60091612c58abd959389d9d7c6b3602bc7044daba71bd99ee176205297');
    expect(sha(ACT_INSTRUCTION)).toBe('34dc702b2b9f7dc24c431cb0a83fc136d6d7812671769edbbdf51bdd4a9dd06e');
  });
});
