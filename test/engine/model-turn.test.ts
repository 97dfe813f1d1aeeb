import { realpathSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { Engine, type AssistantMessage } from '../../src/index.js';
import { HostEnv, MemoryEnv } from '../../src/envs/index.js';
import { jsonParser } from '../../src/kit/parsers/index.js';
import { ScriptedModel } from '../../src/models/index.js';
import { ModelPathAgent, tempDir } from '../helpers/kernel-fixtures.js';

const finalReply = JSON.stringify({ final: 'done' });
const assistants = (messages: readonly { role: string }[]) =>
  messages.filter((m): m is AssistantMessage => m.role === 'assistant');

describe("assistant messages say where the step ran (seed 002's path)", () => {
  it("a host env: path is the workspace's real root, where commands run", async () => {
    const root = await tempDir('qitos-path-');
    const agent = new ModelPathAgent({ model: new ScriptedModel([finalReply]), parser: jsonParser() });
    const r = await new Engine({ agent, env: new HostEnv({ root }), trace: false }).run('t');
    const [m] = assistants(r.state.messages);
    expect(m.info.path).toEqual({ cwd: realpathSync(root), root: realpathSync(root) });
  });

  it('an in-memory env: its virtual root; an env without file ops: no path', async () => {
    const agent = () => new ModelPathAgent({ model: new ScriptedModel([finalReply]), parser: jsonParser() });
    const mem = await new Engine({ agent: agent(), env: new MemoryEnv({ root: '/work' }), trace: false }).run('t');
    expect(assistants(mem.state.messages)[0].info.path).toEqual({ cwd: '/work', root: '/work' });
    const none = await new Engine({ agent: agent(), trace: false }).run('t');
    expect(assistants(none.state.messages)[0].info).not.toHaveProperty('path');
  });
});
