import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ToolRegistry } from '../../../src/index.js';
import { ScriptedModel } from '../../../src/models/index.js';
import { McpManager, MCP_PROMPT_FILES, mcpPromptTask, type McpEvent } from '../../../src/kit/mcp/index.js';
import { ROOT, act, countingSampler, everythingServer, filesystemServer, until } from '../../helpers/mcp-fixtures.js';

/** The reference servers from npm, started over stdio as a user's config would start them. */
describe('@modelcontextprotocol/server-everything', () => {
  let manager: McpManager;
  let registry: ToolRegistry;
  const events: McpEvent[] = [];
  const samplingModel = new ScriptedModel([{ text: 'a sampled reply', usage: { input: 11, output: 3 } }], {
    id: 'scripted:sampler',
    loop: true,
  });
  const { sampler, spent } = countingSampler(samplingModel);
  beforeAll(async () => {
    manager = await McpManager.connect({ ev: everythingServer({ sampling: true }) }, { cwd: ROOT });
    registry = new ToolRegistry();
    manager.attach(registry);
    manager.on((e) => events.push(e));
    manager.bindRun({ emit: () => undefined, sampler });
    // the tools that depend on the client's capabilities are registered after the handshake (tools/list_changed)
    await until(() => registry.has('ev_trigger-sampling-request'), 60_000, 'the conditional tools');
  }, 120_000);
  afterAll(() => manager?.close());

  it('lists and calls its tools', async () => {
    expect(manager.statuses()[0]).toMatchObject({ state: 'connected', resources: true, prompts: true });
    expect(registry.names).toEqual(
      expect.arrayContaining([
        'ev_echo',
        'ev_get-sum',
        'ev_get-tiny-image',
        'ev_trigger-elicitation-request',
        'ev_trigger-sampling-request',
      ]),
    );
    expect((await act(registry, 'ev_echo', { message: 'hello' })).output).toBe('Echo: hello');
    expect((await act(registry, 'ev_get-sum', { a: 2, b: 40 })).output).toMatch(/42/);
  });

  it('returns images as file parts, not base64 text', async () => {
    const r = await act(registry, 'ev_get-tiny-image', {});
    expect(r.output).not.toMatch(/base64|iVBOR/);
    expect((r.state as { attachments: Array<{ mime: string; url: string }> }).attachments).toEqual([
      { mime: 'image/png', url: expect.stringMatching(/^data:image\/png;base64,iVBOR/) },
    ]);
  });

  it('reports progress of a long operation (the running tool state shows it)', async () => {
    const r = await act(registry, 'ev_trigger-long-running-operation', { duration: 1, steps: 3 });
    expect(r.status).toBe('success');
    expect(r.titles.length).toBeGreaterThanOrEqual(2);
    expect(r.titles[0]).toMatch(/^trigger-long-running-operation: /);
  });

  it('resource links come back as mcp:// references the model can read', async () => {
    const links = await act(registry, 'ev_get-resource-links', { count: 2 });
    const refs = (links.output as string).match(/mcp:\/\/ev\/\S+/g)!;
    expect(refs).toHaveLength(2);
    const read = await act(registry, 'read_mcp_resource', { uri: refs[0] });
    expect(read.status).toBe('success');
    expect(read.output).toMatch(/\S/);
  });

  it('lists resources and templates, and reads a templated one', async () => {
    const list = await act(registry, 'list_mcp_resources', { server: 'ev' });
    expect(list.output).toMatch(/- mcp:\/\/ev\/demo:\/\/resource\/static\/document\/architecture.md/);
    expect(list.output).toMatch(/- template mcp:\/\/ev\/demo:\/\/resource\/dynamic\/text\/\{resourceId\}/);
    expect(
      (await act(registry, 'read_mcp_resource', { uri: 'mcp://ev/demo://resource/dynamic/text/3' })).output,
    ).toMatch(/3/);
  });

  it('turns a prompt into a task; arguments are checked against what the prompt declares', async () => {
    expect(await mcpPromptTask(manager, 'ev', 'args-prompt', { city: 'Lyon' })).toMatchObject({
      objective: "What's weather in Lyon?",
      metadata: { mcpPrompt: { server: 'ev', name: 'args-prompt', arguments: { city: 'Lyon' } } },
    });
    await expect(mcpPromptTask(manager, 'ev', 'args-prompt', {})).rejects.toThrow(
      'prompt ev/args-prompt needs --arg city=... (Name of the city)',
    );
    await expect(mcpPromptTask(manager, 'ev', 'args-prompt', { city: 'x', zip: '1' })).rejects.toThrow(
      'prompt ev/args-prompt has no argument "zip" (it takes: city, state)',
    );
    await expect(mcpPromptTask(manager, 'ev', 'nope', {})).rejects.toThrow(
      /MCP server "ev" has no prompt "nope" \(it has: .*args-prompt/,
    );
    const withBlob = await mcpPromptTask(manager, 'ev', 'resource-prompt', { resourceType: 'Blob', resourceId: '2' });
    expect(withBlob.objective).toMatch(/This prompt includes the Blob resource with id: 2/);
    expect(withBlob.resources?.[MCP_PROMPT_FILES]).toEqual([
      expect.objectContaining({ url: expect.stringMatching(/^data:/) }),
    ]);
  });

  it("answers sampling with the run's sampler and reports the call", async () => {
    const r = await act(registry, 'ev_trigger-sampling-request', { prompt: 'Say hi', maxTokens: 30 });
    expect(r.output).toMatch(/LLM sampling result:[\s\S]*a sampled reply/);
    expect(samplingModel.requests.at(-1)).toMatchObject({
      maxOutputTokens: 30,
      messages: [{ role: 'system', content: 'You are a helpful test server.' }, { role: 'user' }],
    });
    expect(spent()).toMatchObject({ input: 11, output: 3 });
    expect(events.find((e) => e.type === 'sampling')).toMatchObject({
      server: 'ev',
      messages: 1,
      maxTokens: 30,
      tokens: { input: 11, output: 3 },
    });
  });

  it('declines URL-mode elicitation (never opens a page) and reports it', async () => {
    const r = await act(registry, 'ev_trigger-url-elicitation', { url: 'https://example.com/login' });
    expect(r.output ?? r.error).toMatch(/declin/i);
    expect(events.find((e) => e.type === 'elicitation' && e.mode === 'url')).toMatchObject({
      server: 'ev',
      mode: 'url',
      action: 'decline',
    });
  });

  it('declines elicitation by default and reports it', async () => {
    const r = await act(registry, 'ev_trigger-elicitation-request', {});
    expect(r.output).toMatch(/declined/);
    expect(events.find((e) => e.type === 'elicitation' && e.mode === 'form')).toMatchObject({
      server: 'ev',
      mode: 'form',
      action: 'decline',
      fields: expect.arrayContaining(['name']),
    });
  });
});

describe('@modelcontextprotocol/server-filesystem', () => {
  let dir: string;
  let outside: string;
  let manager: McpManager;
  let registry: ToolRegistry;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'qitos-mcp-fs-'));
    outside = mkdtempSync(join(tmpdir(), 'qitos-mcp-outside-'));
    writeFileSync(join(dir, 'notes.txt'), 'filesystem says hi\n');
    writeFileSync(join(outside, 'secret.txt'), 'not for the agent');
    manager = await McpManager.connect({ fs: filesystemServer([dir]) }, { cwd: ROOT });
    registry = new ToolRegistry();
    manager.attach(registry);
  }, 120_000);
  afterAll(async () => {
    await manager?.close();
    rmSync(dir, { recursive: true, force: true });
    rmSync(outside, { recursive: true, force: true });
  });

  it('reads, writes and lists inside its folder; a path outside is an error result the model sees', async () => {
    expect(manager.statuses()[0].state).toBe('connected');
    expect((await act(registry, 'fs_read_text_file', { path: join(dir, 'notes.txt') })).output).toBe(
      'filesystem says hi\n',
    );
    expect(
      (await act(registry, 'fs_write_file', { path: join(dir, 'out.txt'), content: 'written by MCP' })).status,
    ).toBe('success');
    expect(readFileSync(join(dir, 'out.txt'), 'utf8')).toBe('written by MCP');
    expect((await act(registry, 'fs_list_directory', { path: dir })).output).toMatch(
      /\[FILE\] notes.txt[\s\S]*\[FILE\] out.txt|\[FILE\] out.txt[\s\S]*\[FILE\] notes.txt/,
    );
    const denied = await act(registry, 'fs_read_text_file', { path: join(outside, 'secret.txt') });
    expect(denied.status).toBe('error');
    expect(denied.error).toMatch(/outside allowed directories|Access denied/i);
  });
});
