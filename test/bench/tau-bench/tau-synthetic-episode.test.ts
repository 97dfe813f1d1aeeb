import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ScriptedModel, type ScriptReply } from '../../../src/kit/testing/index.js';
import { runSuite } from '../../../src/bench/index.js';
import { TauEnv, tauAgentFactory, tauSuite, verifyPrompt, type TauDomain } from '../../../src/bench/tau-bench/index.js';
import { syntheticDomain, syntheticGroundTruthRewards } from './tau-test-domain.js';

// Over tau-env's synthetic databases and tasks (ours, with goldens from the original Python env): runs everywhere.
let dirs: string[] = [];
afterEach(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
  dirs = [];
});

async function run(
  domain: TauDomain,
  taskIds: string[],
  agent: 'tool-calling' | 'ground-truth',
  agentScript: ScriptReply[],
  userScript: ScriptReply[],
  userStrategy?: string,
) {
  const out = mkdtempSync(join(tmpdir(), 'qitos-tau-synth-'));
  dirs.push(out);
  const userModel = new ScriptedModel(userScript, { id: 'scripted:user' });
  const envs: TauEnv[] = [];
  const factory = tauAgentFactory({ domain, agent, userModel, ...(userStrategy ? { userStrategy } : {}) });
  const r = await runSuite({
    suite: tauSuite({ domain, taskIds }),
    agentFactory: async (ctx) => {
      const built = await factory(ctx);
      envs.push((built as { env?: unknown }).env as TauEnv);
      return built;
    },
    ...(agent === 'ground-truth' ? {} : { model: new ScriptedModel(agentScript, { id: 'scripted:agent' }) }),
    outDir: out,
    concurrency: 1,
  });
  return { r, userModel, envs };
}

describe('tau-bench episodes over the synthetic fixtures', () => {
  it('tool-calling with a verify customer: candidates judged by the supervisor through the run, reward as the original', async () => {
    const domain = syntheticDomain('retail');
    const { r, userModel, envs } = await run(
      domain,
      ['0'],
      'tool-calling',
      [
        {
          toolCalls: [
            {
              name: 'modify_pending_order_items',
              input:
                '{"order_id": "#W001", "item_ids": ["1234567890"], "new_item_ids": ["7777777777"], "payment_method_id": "gift_card_8"}',
            },
          ],
        },
        {
          toolCalls: [{ name: 'cancel_pending_order', input: '{"order_id": "#W005", "reason": "ordered by mistake"}' }],
        },
        'Both are done.',
      ],
      // reset: a candidate the supervisor rejects, then one it accepts; after the agent's message: STOP, accepted.
      [
        'Tell me everything.',
        'false',
        'Please change my T-shirt on #W001 and cancel #W005.',
        'true',
        '###STOP###',
        'true',
      ],
      'verify',
    );
    const line = r.results[0];
    expect(line).toMatchObject({ pass: true, stopReason: 'env_terminal', error: null });
    expect(line.details).toMatchObject({
      reward: syntheticGroundTruthRewards('retail')[0],
      ended: 'user',
      userStrategy: 'verify',
    });
    expect(line.usageByPurpose?.user.modelCalls).toBe(6);
    // The second supervisor call judged the second candidate over the conversation so far (greeting only).
    const judged = userModel.requests[3].messages[0];
    expect(judged.role === 'user' && judged.content[0].type === 'text' && judged.content[0].text).toBe(
      verifyPrompt(
        `System: ${envs[0].user.messages[0].content}\nCustomer: Hi! How can I help you today?`,
        'Please change my T-shirt on #W001 and cancel #W005.',
      ),
    );
    expect(envs[0].conversation.map((m) => m.role)).toEqual(['user', 'agent', 'user']);
  });

  it('a customer model that fails ends the trial as a run error, recorded, with reward 0', async () => {
    const domain = syntheticDomain('retail');
    const { r } = await run(domain, ['0'], 'tool-calling', ['Hello?'], [{ text: 'Thought without a marker' }], 'react');
    expect(r.results[0]).toMatchObject({ pass: false, score: 0, errorKind: 'run' });
    expect(r.results[0].error).toMatch(/Invalid response format/);
  });

  it('the ground-truth agent gets, on every synthetic task, the reward the original Python env gives', async () => {
    for (const name of ['airline', 'retail'] as const) {
      const domain = syntheticDomain(name);
      const ids = domain.tasks('test').map((t) => t.id);
      const { r } = await run(domain, ids, 'ground-truth', [], []);
      const byId = new Map(r.results.map((l) => [l.taskId, l.details?.reward]));
      expect(ids.map((id) => byId.get(id))).toEqual(syntheticGroundTruthRewards(name));
    }
  });
});
