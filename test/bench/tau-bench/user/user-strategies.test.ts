import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { ScriptedModel, type ScriptReply } from '../../../../src/kit/testing/index.js';
import { responseText, type ModelMessage } from '../../../../src/core/index.js';
import {
  LlmUser,
  ReactUser,
  ReflectionUser,
  ScriptedUser,
  VerifyUser,
  createUserSimulator,
  llmUserSystemPrompt,
  parseReactUserReply,
  reactUserSystemPrompt,
  supervisorTranscript,
  verifyPrompt,
  type AskUserModel,
  type UserTurn,
} from '../../../../src/bench/tau-bench/index.js';

/** The simulator's model calls go to a ScriptedModel; each call's kind and request is kept. */
function scripted(replies: ScriptReply[]): { model: ScriptedModel; ask: AskUserModel; kinds: string[] } {
  const model = new ScriptedModel(replies);
  const kinds: string[] = [];
  const ask: AskUserModel = async (messages, kind) => {
    kinds.push(kind);
    const request = {
      messages: messages.map((m): ModelMessage =>
        m.role === 'system'
          ? { role: 'system', content: m.content }
          : { role: m.role, content: [{ type: 'text', text: m.content }] },
      ),
    };
    return responseText(await model.generate(request));
  };
  return { model, ask, kinds };
}

const text = (m: ModelMessage) =>
  m.role === 'system' ? m.content : m.content.map((p) => ('text' in p ? p.text : '')).join('');
const turns = (r: { messages: ModelMessage[] }) => r.messages.map((m) => ({ role: m.role, content: text(m) }));

describe('llm user', () => {
  it('starts from the agent greeting with roles flipped, and keeps the whole conversation', async () => {
    const { model, ask } = scripted(['I need to return a lamp.', 'It is order #W1.']);
    const user = new LlmUser();
    expect(await user.reset('Return the lamp of order #W1.', ask)).toBe('I need to return a lamp.');
    expect(turns(model.requests[0])).toEqual([
      { role: 'system', content: llmUserSystemPrompt('Return the lamp of order #W1.') },
      { role: 'user', content: 'Hi! How can I help you today?' },
    ]);
    expect(await user.step('Which order?', ask)).toBe('It is order #W1.');
    expect(turns(model.requests[1]).slice(2)).toEqual([
      { role: 'assistant', content: 'I need to return a lamp.' },
      { role: 'user', content: 'Which order?' },
    ]);
    expect(user.messages.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'user', 'assistant']);
  });
});

describe('react user', () => {
  it('reads the reply as the original does (the text after Thought:, STOP anywhere, errors otherwise)', () => {
    expect(parseReactUserReply('Thought:\nI should ask.\n\nUser Response:\nHello')).toBe(
      'I should ask.\n\nUser Response:\nHello',
    );
    expect(parseReactUserReply('User Response:\n  Hello there ')).toBe('Hello there');
    expect(parseReactUserReply('Thought: done\nUser Response: ###STOP###')).toBe('###STOP###');
    expect(() => parseReactUserReply('just text')).toThrow(/Invalid response format: just text/);
    expect(() => parseReactUserReply('Thought: a Thought: b')).toThrow(/too many values to unpack/);
  });

  it('the STOP token anywhere wins (property)', () => {
    fc.assert(
      fc.property(fc.string(), fc.string(), (a, b) => parseReactUserReply(`${a}###STOP###${b}`) === '###STOP###'),
    );
  });

  it('sends the react system prompt and returns the parsed response', async () => {
    const { model, ask } = scripted(['Thought:\nstart\nUser Response:\nhi']);
    const user = new ReactUser();
    expect(await user.reset('Do X.', ask)).toBe('start\nUser Response:\nhi');
    expect(turns(model.requests[0])[0].content).toBe(reactUserSystemPrompt('Do X.'));
    expect(user.messages.at(-1)).toEqual({ role: 'assistant', content: 'Thought:\nstart\nUser Response:\nhi' });
  });
});

describe('verify user', () => {
  it('asks the supervisor about each candidate; the first accepted one is sent and kept', async () => {
    const { model, ask, kinds } = scripted(['candidate one', 'false', 'candidate two', 'Classification: TRUE']);
    const user = new VerifyUser();
    expect(await user.reset('Cancel order #W2.', ask)).toBe('candidate two');
    expect(kinds).toEqual(['reply', 'verify', 'reply', 'verify']);
    const conversation: UserTurn[] = [
      { role: 'system', content: llmUserSystemPrompt('Cancel order #W2.') },
      { role: 'user', content: 'Hi! How can I help you today?' },
    ];
    // The supervisor gets one user message: the transcript (the agent is the "Customer", as roles are flipped) and the candidate.
    expect(turns(model.requests[1])).toEqual([
      { role: 'user', content: verifyPrompt(supervisorTranscript(conversation), 'candidate one') },
    ]);
    expect(supervisorTranscript(conversation)).toBe(
      `System: ${conversation[0].content}\nCustomer: Hi! How can I help you today?`,
    );
    expect(user.messages).toEqual([...conversation, { role: 'assistant', content: 'candidate two' }]);
  });

  it('sends the last candidate when none is accepted, without keeping it (as the original)', async () => {
    const { ask } = scripted(['a', 'no', 'b', 'no', 'c', 'nope']);
    const user = new VerifyUser();
    expect(await user.reset('I', ask)).toBe('c');
    expect(user.messages.map((m) => m.role)).toEqual(['system', 'user']);
  });
});

describe('reflection user', () => {
  it('rewrites a rejected reply: reflect, add the new response as an agent message, answer again', async () => {
    const { model, ask, kinds } = scripted([
      'first',
      'false',
      'Reflection:\ntoo much at once\n\nResponse:\n  Say only the order id. ',
      'second',
      'true',
    ]);
    const user = new ReflectionUser();
    expect(await user.reset('Exchange order #W3.', ask)).toBe('second');
    expect(kinds).toEqual(['reply', 'verify', 'reflect', 'reply', 'verify']);
    const again = turns(model.requests[3]);
    expect(again.at(-1)).toEqual({ role: 'user', content: 'Say only the order id.' });
    expect(again.some((m) => m.content === 'first')).toBe(false); // the copy was taken before the first reply
    // Every reply generated joins the simulator's own conversation, the rejected one too.
    expect(user.messages.filter((m) => m.role === 'assistant').map((m) => m.content)).toEqual(['first', 'second']);
  });

  it('sends the first reply when the rewrite is rejected too', async () => {
    const { ask } = scripted(['first', 'false', 'Response: other', 'second', 'false']);
    expect(await new ReflectionUser().reset('I', ask)).toBe('first');
  });

  it('a reflection without "Response:" is an error naming it', async () => {
    const { ask } = scripted(['first', 'false', 'Reflection: no response here']);
    await expect(new ReflectionUser().reset('I', ask)).rejects.toThrow(/Response:/);
  });
});

describe('scripted user and strategies', () => {
  it('says its lines, then ###STOP###; without lines it states the instruction', async () => {
    const never: AskUserModel = async () => {
      throw new Error('no model');
    };
    const user = new ScriptedUser(['one', 'two']);
    expect(await user.reset('I', never)).toBe('one');
    expect(await user.step('a', never)).toBe('two');
    expect(await user.step('b', never)).toBe('###STOP###');
    const plain = new ScriptedUser();
    expect(await plain.reset('Book a flight.', never)).toBe('Book a flight.');
    expect(await plain.step('Done.', never)).toBe('###STOP###');
  });

  it('builds each strategy by name and refuses others', () => {
    for (const s of ['llm', 'react', 'verify', 'reflection', 'scripted'])
      expect(createUserSimulator(s).strategy).toBe(s);
    expect(() => createUserSimulator('human')).toThrow(
      /unknown user strategy "human".*llm, react, verify, reflection, scripted/,
    );
  });
});
