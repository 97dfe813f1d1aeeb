import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ScriptedModel, type ScriptReply } from '../../../src/kit/testing/index.js';
import { runSuite, type ResultLine } from '../../../src/bench/index.js';
import type { ModelMessage, ModelRequest } from '../../../src/core/index.js';
import {
  REACT_INSTRUCTION,
  TauEnv,
  llmUserSystemPrompt,
  pyJsonDumps,
  fromPlain,
  tauAgentFactory,
  tauSuite,
  type TauAgentKind,
  type TauDomain,
} from '../../../src/bench/tau-bench/index.js';
import { NO_DATA, tauDataInstalledHere, testDomain } from './tau-test-domain.js';

const data = tauDataInstalledHere();
if (!data) console.log(NO_DATA);

let dirs: string[] = [];
afterEach(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
  dirs = [];
});

const text = (m: ModelMessage) =>
  m.role === 'system'
    ? m.content
    : m.content.map((p) => ('text' in p ? p.text : p.type === 'tool-call' ? `[call ${p.name}]` : '')).join('');
const roles = (r: ModelRequest) => r.messages.map((m) => m.role);

/** One trial of `taskId` through the bench runner, the agent and the simulated customer each on their own scripted model. */
async function episode(
  domain: TauDomain,
  split: string,
  taskId: string,
  agent: TauAgentKind,
  agentScript: ScriptReply[],
  userScript: ScriptReply[],
  userStrategy = 'llm',
) {
  const out = mkdtempSync(join(tmpdir(), 'qitos-tau-episode-'));
  dirs.push(out);
  const agentModel = new ScriptedModel(agentScript, { id: 'scripted:agent' });
  const userModel = new ScriptedModel(userScript, { id: 'scripted:user' });
  let env: TauEnv | undefined;
  const factory = tauAgentFactory({ domain, split, agent, userStrategy, userModel });
  const result = await runSuite({
    suite: tauSuite({ domain, split, taskIds: [taskId] }),
    agentFactory: async (ctx) => {
      const built = await factory(ctx);
      env = (built as { env?: unknown }).env as TauEnv;
      return built;
    },
    model: agentModel,
    outDir: out,
    concurrency: 1,
  });
  const line: ResultLine = result.results[0];
  return { line, agentModel, userModel, env: env!, out, summary: result.summary };
}

describe.skipIf(!data)('a tau-bench episode through the kernel (scripted agent and customer models)', () => {
  it('tool-calling: the customer speaks first, text replies go to the customer, tool calls to the session; reward 1', async () => {
    const domain = await testDomain('retail');
    const { line, agentModel, userModel, env, out, summary } = await episode(
      domain,
      'dev',
      '0',
      'tool-calling',
      [
        'Could you confirm that I should cancel order #W5442520 because you no longer need it?',
        {
          toolCalls: [
            {
              name: 'cancel_pending_order',
              input: '{"order_id": "#W5442520", "reason": "no longer needed"}',
              id: 'c1',
            },
          ],
          usage: { input: 10, output: 2 },
        },
        'Done: order #W5442520 is cancelled and refunded.',
      ],
      ['Hi, I want to cancel my order #W5442520.', 'Yes, I no longer need it.', '###STOP###'],
    );
    expect(line).toMatchObject({ pass: true, score: 1, stopReason: 'env_terminal', steps: 3, error: null });
    expect(line.details).toMatchObject({ reward: 1, rActions: true, ended: 'user', userStrategy: 'llm' });
    expect(line.details!.dbHash).toBe(line.details!.gtDbHash);
    expect(line.details!.dbHash).toBe(env.session.dbHash());
    // The customer's three calls are the run's side calls: counted in the totals and apart from them.
    expect(line.usageByPurpose?.user.modelCalls).toBe(3);
    expect(line.modelCalls).toBe(6);
    expect(summary.byPurpose?.user).toMatchObject({ modelCalls: 3 });

    // The agent's requests: the wiki alone as system prompt, the tools' get_info() schemas byte for byte, temperature 0.
    const [first, second, third] = agentModel.requests;
    expect(first.messages[0]).toEqual({ role: 'system', content: domain.wiki });
    expect(roles(first)).toEqual(['system', 'user']);
    expect(text(first.messages[1])).toBe('Hi, I want to cancel my order #W5442520.');
    expect(first.temperature).toBe(0);
    expect(
      first.tools?.map((t) => ({
        type: 'function',
        function: { name: t.name, description: t.description, parameters: t.inputSchema },
      })),
    ).toEqual(domain.tools);
    expect(roles(second)).toEqual(['system', 'user', 'assistant', 'user']);
    expect(text(second.messages[3])).toBe('Yes, I no longer need it.');
    expect(roles(third)).toEqual(['system', 'user', 'assistant', 'user', 'assistant', 'tool']);
    const toolMessage = third.messages[5] as Extract<ModelMessage, { role: 'tool' }>;
    expect(toolMessage.content[0].output).toMatch(/^\{"order_id": "#W5442520", .*"status": "cancelled"/);

    // The customer's requests: roles flipped, opened by the agent's greeting; the agent's messages are `user`.
    expect(userModel.requests[0].messages).toEqual([
      { role: 'system', content: llmUserSystemPrompt(env.task.instruction) },
      { role: 'user', content: [{ type: 'text', text: 'Hi! How can I help you today?' }] },
    ]);
    expect(userModel.requests[2].messages.map((m) => `${m.role}: ${text(m)}`).slice(2)).toEqual([
      'assistant: Hi, I want to cancel my order #W5442520.',
      'user: Could you confirm that I should cancel order #W5442520 because you no longer need it?',
      'assistant: Yes, I no longer need it.',
      'user: Done: order #W5442520 is cancelled and refunded.',
    ]);

    // The trace records the customer's calls as model calls of purpose `user`, and their usage in the manifest.
    const manifest = JSON.parse(readFileSync(join(out, line.traceDir!, 'manifest.json'), 'utf8'));
    expect(manifest.summary.usageByPurpose.user.modelCalls).toBe(3);
    const events = readFileSync(join(out, line.traceDir!, 'events.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(events.filter((e) => e.type === 'model_call' && e.data.purpose === 'user')).toHaveLength(3);
  });

  it("the model's raw argument JSON reaches the session: 100.0 stays a float", async () => {
    const domain = await testDomain('airline');
    const task = domain.tasks('test')[0];
    const { env } = await episode(
      domain,
      'test',
      '0',
      'tool-calling',
      [{ toolCalls: [{ name: 'send_certificate', input: `{"user_id": "${task.userId}", "amount": 100.0}` }] }, 'Sent.'],
      ['Hello.', '###STOP###'],
    );
    const sent = env.session.actions.find((a) => a.name === 'send_certificate')!;
    expect(sent.kwargsJson).toBe(`{"user_id": "${task.userId}", "amount": 100.0}`);
  });

  it('only the first tool call of a reply runs, and the others leave the history (as tool_calls[:1])', async () => {
    const domain = await testDomain('retail');
    const { agentModel, env } = await episode(
      domain,
      'dev',
      '0',
      'tool-calling',
      [
        {
          toolCalls: [
            { name: 'get_order_details', input: '{"order_id": "#W5442520"}' },
            { name: 'cancel_pending_order', input: '{"order_id": "#W5442520", "reason": "no longer needed"}' },
          ],
        },
        'Anything else?',
      ],
      ['Cancel #W5442520 please.', '###STOP###'],
    );
    expect(env.session.actions.map((a) => a.name)).toEqual(['get_order_details', 'respond']);
    const calls = agentModel.requests[1].messages.flatMap((m) =>
      m.role === 'assistant' ? m.content.filter((p) => p.type === 'tool-call') : [],
    );
    expect(calls.map((c) => (c.type === 'tool-call' ? c.name : ''))).toEqual(['get_order_details']);
  });

  it(
    'react: the prompt is wiki + tools JSON + instruction; tool outputs come back as "API ' +
      'output: ..."; non-JSON is a message',
    async () => {
      const domain = await testDomain('retail');
      const { line, agentModel, env } = await episode(
        domain,
        'dev',
        '0',
        'react',
        [
          'Thought:\nI should check the order.\nAction:\n{"name": "get_order_details", "arguments": {"order_id": "#W5442520"}}',
          'Thought:\nAsk the user.\nAction:\nShall I cancel it?',
          'Thought:\nCancel.\nAction:\n{"name": "cancel_pending_order", "arguments": {"order_id": ' +
            '"#W5442520", "reason": "no longer needed"}}',
          'Thought:\nTell them.\nAction:\n{"name": "respond", "arguments": {"content": "It is cancelled."}}',
        ],
        ['I want to cancel #W5442520.', 'Yes please.', '###STOP###'],
      );
      expect(line).toMatchObject({ pass: true, stopReason: 'env_terminal' });
      const first = agentModel.requests[0];
      expect(first.messages[0]).toEqual({
        role: 'system',
        content: `${domain.wiki}\n#Available tools\n${pyJsonDumps(fromPlain(domain.tools))}${REACT_INSTRUCTION}`,
      });
      expect(first.tools).toBeUndefined();
      const second = agentModel.requests[1].messages.map((m) => `${m.role}: ${text(m)}`);
      expect(second[3]).toMatch(/^user: API output: \{"order_id": "#W5442520"/);
      const third = agentModel.requests[2].messages.map((m) => `${m.role}: ${text(m)}`);
      expect(third.slice(4)).toEqual([
        'assistant: Thought:\nAsk the user.\nAction:\nShall I cancel it?',
        'user: Yes please.',
      ]);
      expect(env.conversation.filter((m) => m.role === 'agent').map((m) => m.content)).toEqual([
        'Shall I cancel it?',
        'It is cancelled.',
      ]);
    },
  );

  it(
    'a terminate tool ends the episode; an unknown tool is the original\'s "Unknown action"; ' +
      '30 steps without an end score 0',
    async () => {
      const domain = await testDomain('airline');
      const t = await episode(
        domain,
        'test',
        '13',
        'tool-calling',
        [{ toolCalls: [{ name: 'transfer_to_human_agents', input: '{"summary": "The user wants a human."}' }] }],
        ['I want a human.'],
      );
      expect(t.line).toMatchObject({ stopReason: 'env_terminal', steps: 1 });
      expect(t.line.details).toMatchObject({ ended: 'tool' });

      const u = await episode(
        domain,
        'test',
        '0',
        'tool-calling',
        [{ toolCalls: [{ name: 'book_a_trip', input: '{}' }] }, 'Hello?'],
        ['Hi.', '###STOP###'],
      );
      expect(u.env.session.actions[0]).toMatchObject({ name: 'book_a_trip' });
      const toolOutput = u.agentModel.requests[1].messages.find((m) => m.role === 'tool') as Extract<
        ModelMessage,
        { role: 'tool' }
      >;
      expect(toolOutput.content[0]).toMatchObject({ output: 'Unknown action book_a_trip', isError: false });

      const loop = await episode(
        domain,
        'test',
        '0',
        'tool-calling',
        Array.from({ length: 30 }, () => ({ toolCalls: [{ name: 'list_all_airports', input: '{}' }] })),
        ['Hi.'],
      );
      expect(loop.line).toMatchObject({ stopReason: 'budget_steps', steps: 30, score: 0, pass: false });
      expect(loop.line.explanation).toMatch(/did not end/);
    },
  );
});

describe.skipIf(!data)('the ground-truth agent', () => {
  it('scores reward 1.0 on every task of every split of both domains', async () => {
    for (const name of ['airline', 'retail'] as const) {
      const domain = await testDomain(name);
      for (const split of domain.splits) {
        const out = mkdtempSync(join(tmpdir(), `qitos-tau-gt-${name}-${split}-`));
        dirs.push(out);
        const r = await runSuite({
          suite: tauSuite({ domain, split }),
          agentFactory: tauAgentFactory({ domain, split, agent: 'ground-truth' }),
          outDir: out,
          concurrency: 2,
        });
        expect({ name, split, failed: r.summary.failed.map((f) => `${f.taskId}: ${f.explanation}`) }).toEqual({
          name,
          split,
          failed: [],
        });
        expect(r.summary.trials).toBe(domain.tasks(split).length);
      }
    }
  }, 240_000);
});
