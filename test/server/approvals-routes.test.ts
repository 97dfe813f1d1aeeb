import { readFile } from 'node:fs/promises';
import { request } from 'node:http';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { State } from '../../src/core/index.js';
import { ApprovalQueue } from '../../src/engine/approval-queue.js';
import { Engine } from '../../src/engine/engine.js';
import OpenAI from 'openai';
import { ReActAgent } from '../../src/kit/agents/index.js';
import { WorkflowAgent, WorkflowDefinition } from '../../src/kit/workflow/index.js';
import { ScriptedModel } from '../../src/models/index.js';
import { startServer, type RunningServer } from '../../src/server/index.js';
import { addTool, tempDir } from '../helpers/kernel-fixtures.js';
import { adder } from './serve-fixtures.js';

const servers: RunningServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close({ graceMs: 0 })));
});

/** A server whose "adder" agent must ask before each add call; its asks wait in the server's approval queue. */
async function server(approvalTimeoutMs = 30_000) {
  const traceDir = join(await tempDir('qitos-approvals-'), 'traces');
  const approvals = new ApprovalQueue('server');
  const agent = new ReActAgent({ model: new ScriptedModel([adder], { loop: true }), tools: [addTool] });
  const engine = new Engine<State>({
    agent,
    trace: { dir: traceDir },
    permission: { add: 'ask' },
    onApproval: approvals.approver,
    approvalTimeoutMs,
  });
  const s = await startServer({ agents: [{ id: 'adder', engine }], traceDir, port: 0, approvals, heartbeatMs: 40 });
  servers.push(s);
  return Object.assign(s, { traceDir, approvals });
}

/** Starts a streamed completion and reads it in the background. */
async function streamChat(url: string) {
  const res = await fetch(`${url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'adder', stream: true, messages: [{ role: 'user', content: 'add 2 and 3' }] }),
  });
  const runId = res.headers.get('x-qitos-run-id')!;
  let text = '';
  const done = (async () => {
    const decoder = new TextDecoder();
    const reader = res.body!.getReader();
    for (let r = await reader.read(); !r.done; r = await reader.read())
      text += decoder.decode(r.value, { stream: true });
  })();
  return { runId, text: () => text, done };
}

async function waitFor<T>(fn: () => Promise<T | undefined>, ms = 5000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 20));
  }
}

const pendingOf = async (url: string, runId: string) => {
  const r = await fetch(`${url}/v1/runs/${runId}/approvals`);
  const body = (await r.json()) as { data: Array<{ id: string; tool: string; subjects: string[] }> };
  return body.data.length ? body.data : undefined;
};

const answer = (url: string, runId: string, id: string, body: unknown) =>
  fetch(`${url}/v1/runs/${runId}/approvals/${id}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });

describe('permission asks on the server', () => {
  it(
    'a streamed completion waits with heartbeats, shows the pending approval in its events ' +
      'and the approvals list; allow lets the call run',
    async () => {
      const s = await server();
      const chat = await streamChat(s.url);
      const [pending] = await waitFor(() => pendingOf(s.url, chat.runId));
      expect(pending).toMatchObject({ tool: 'add', subjects: [] });
      // the run's event stream shows the ask
      const events = await fetch(`${s.url}/v1/runs/${chat.runId}/events`);
      const reader = events.body!.getReader();
      let seen = '';
      while (!seen.includes('event: approval')) seen += new TextDecoder().decode((await reader.read()).value);
      await reader.cancel();
      expect(seen).toContain(pending.id);
      // the open completion gets keep-alive comments while it waits, and says what it waits for
      await waitFor(async () => ((chat.text().match(/: waiting for approval/g) ?? []).length >= 2 ? true : undefined));
      expect(chat.text()).toContain(`[waiting for approval ${pending.id}: add`);
      const r = await answer(s.url, chat.runId, pending.id, { decision: 'allow' });
      expect(r.status).toBe(200);
      expect(await r.json()).toEqual({ id: pending.id, runId: chat.runId, decision: 'allow' });
      await chat.done;
      expect(chat.text()).toContain('"content":"5"');
      expect(chat.text()).toContain('data: [DONE]');
      const steps = (await readFile(join(s.traceDir, chat.runId, 'steps.jsonl'), 'utf8'))
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l));
      expect(steps[0].results[0].permission).toMatchObject({
        outcome: 'allow',
        decidedBy: 'user',
        approver: 'server',
        approvalId: pending.id,
      });
    },
  );

  it(
    'deny with a message refuses the call (the agent sees the message); answers to unknown ' +
      'asks, bad bodies and ended runs are refused',
    async () => {
      const s = await server();
      const chat = await streamChat(s.url);
      const [pending] = await waitFor(() => pendingOf(s.url, chat.runId));
      const bad = await answer(s.url, chat.runId, pending.id, { decision: 'perhaps' });
      expect(bad.status).toBe(400);
      expect(((await bad.json()) as { error: { param: string } }).error.param).toBe('decision');
      const unknown = await answer(s.url, chat.runId, 'apr_nope', { decision: 'allow' });
      expect(unknown.status).toBe(404);
      expect(((await unknown.json()) as { error: { code: string } }).error.code).toBe('approval_not_found');
      expect(
        (await answer(s.url, chat.runId, pending.id, { decision: 'deny', message: 'use mental arithmetic' })).status,
      ).toBe(200);
      await chat.done;
      const steps = (await readFile(join(s.traceDir, chat.runId, 'steps.jsonl'), 'utf8'))
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l));
      expect(steps[0].results[0]).toMatchObject({
        status: 'error',
        permission: { outcome: 'deny', decidedBy: 'user', approver: 'server', message: 'use mental arithmetic' },
      });
      expect(steps[0].results[0].error).toContain('Message: use mental arithmetic');
      const gone = await fetch(`${s.url}/v1/runs/${chat.runId}/approvals`);
      expect(gone.status).toBe(404);
      expect(s.approvals.pending()).toEqual([]);
    },
  );

  it('an ask nobody answers times out: the call is refused and nothing stays pending', async () => {
    const s = await server(150);
    const chat = await streamChat(s.url);
    await chat.done;
    const steps = (await readFile(join(s.traceDir, chat.runId, 'steps.jsonl'), 'utf8'))
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(steps[0].results[0].permission).toMatchObject({ outcome: 'deny', decidedBy: 'timeout' });
    expect(s.approvals.pending()).toEqual([]);
  });
});

describe('a non-streamed completion waiting for an approval', () => {
  it('keeps its connection alive with whitespace before the JSON: an idle-timeout client stays, the openai client parses it', async () => {
    const s = await server();
    // a client that drops a connection idle for 300 ms (as a proxy does); the answer comes after 900 ms
    const raw = new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = request(
        `${s.url}/v1/chat/completions`,
        { method: 'POST', headers: { 'content-type': 'application/json' } },
        (res) => {
          let body = '';
          res.setEncoding('utf8');
          res.on('data', (d: string) => (body += d));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
        },
      );
      req.setTimeout(300, () => req.destroy(new Error('idle for 300 ms')));
      req.on('error', reject);
      req.end(JSON.stringify({ model: 'adder', messages: [{ role: 'user', content: 'add 2 and 3' }] }));
    });
    const [pending] = await waitFor(async () => s.approvals.pending()[0] && [s.approvals.pending()[0]]);
    await new Promise((r) => setTimeout(r, 900));
    expect((await answer(s.url, pending.runId, pending.id, { decision: 'allow' })).status).toBe(200);
    const r = await raw;
    expect(r.status).toBe(200);
    expect(r.body).toMatch(/^ {5,}\{/); // heartbeats every 40 ms, then the body
    expect(JSON.parse(r.body)).toMatchObject({ object: 'chat.completion', choices: [{ message: { content: '5' } }] });

    const client = new OpenAI({ baseURL: `${s.url}/v1`, apiKey: 'unused', maxRetries: 0 });
    const answering = (async () => {
      const [p] = await waitFor(async () => s.approvals.pending()[0] && [s.approvals.pending()[0]]);
      await new Promise((r) => setTimeout(r, 200));
      await answer(s.url, p.runId, p.id, { decision: 'allow' });
    })();
    const completion = await client.chat.completions.create({
      model: 'adder',
      messages: [{ role: 'user', content: 'add 2 and 3' }],
    });
    await answering;
    expect(completion.choices[0].message.content).toBe('5');
  });
});

describe('a workflow interrupt node on the server', () => {
  it('shows as a pending approval with its prompt; an answer with a message is the value', async () => {
    const traceDir = join(await tempDir('qitos-approvals-wf-'), 'traces');
    const approvals = new ApprovalQueue('server');
    const workflow = WorkflowDefinition.create({
      nodes: [
        { kind: 'start', id: 's' },
        { kind: 'interrupt', id: 'ask', prompt: 'Which colour?', variable: 'colour' },
        { kind: 'end', id: 'e', result: 'colour={{colour}}' },
      ],
      edges: [
        { from: 's', to: 'ask' },
        { from: 'ask', to: 'e' },
      ],
    });
    const engine = new Engine<State>({
      agent: new WorkflowAgent({ workflow }) as never,
      trace: { dir: traceDir },
      onApproval: approvals.approver,
    });
    const s = await startServer({ agents: [{ id: 'flow', engine }], traceDir, port: 0, approvals, heartbeatMs: 40 });
    servers.push(s);
    const res = fetch(`${s.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'flow', messages: [{ role: 'user', content: 'go' }] }),
    });
    const [p] = await waitFor(async () => approvals.pending()[0] && [approvals.pending()[0]]);
    const listed = (await (await fetch(`${s.url}/v1/runs/${p.runId}/approvals`)).json()) as { data: unknown[] };
    expect(listed.data).toEqual([
      expect.objectContaining({
        id: p.id,
        key: 'interrupt',
        title: 'node "ask" asks: Which colour?',
        input: { node: 'ask', variable: 'colour', prompt: 'Which colour?' },
      }),
    ]);
    expect((await answer(s.url, p.runId, p.id, { decision: 'allow', message: 'teal' })).status).toBe(200);
    const body = JSON.parse(await (await res).text());
    expect(body.choices[0].message.content).toBe('colour=teal');
  });
});
