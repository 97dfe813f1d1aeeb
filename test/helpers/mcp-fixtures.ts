import { resolve } from 'node:path';
import { ToolRegistry, emptyTokens, type ActionResult, type Model, type Tokens } from '../../src/index.js';
import { addTokens, newActionId } from '../../src/core/index.js';
import { actContext } from '../../src/kit/testing/tool-context.js';
import { MemoryEnv } from '../../src/envs/index.js';
import { ActionExecutor } from '../../src/engine/action-executor.js';
import type { McpEvent, McpManager, McpSampler, McpServerConfig } from '../../src/kit/mcp/index.js';

/** The repository root (servers run from here so `--import tsx` and the SDK resolve). */
export const ROOT = resolve(__dirname, '../..');

/** The fixture MCP server (test/fixtures/mcp) over stdio, with config overrides. */
export function fixtureServer(extra: Partial<Extract<McpServerConfig, { type: 'stdio' }>> = {}): McpServerConfig {
  return {
    type: 'stdio',
    command: process.execPath,
    args: ['--import', 'tsx', resolve(ROOT, 'test/fixtures/mcp/server.ts')],
    cwd: ROOT,
    ...extra,
  };
}

/** `@modelcontextprotocol/server-everything` (a dev dependency) over stdio. */
export function everythingServer(extra: Partial<Extract<McpServerConfig, { type: 'stdio' }>> = {}): McpServerConfig {
  return {
    type: 'stdio',
    command: process.execPath,
    args: [resolve(ROOT, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js'), 'stdio'],
    cwd: ROOT,
    ...extra,
  };
}

/** `@modelcontextprotocol/server-filesystem` (a dev dependency) over stdio, allowed into `dirs`. */
export function filesystemServer(dirs: string[]): McpServerConfig {
  return {
    type: 'stdio',
    command: process.execPath,
    args: [resolve(ROOT, 'node_modules/@modelcontextprotocol/server-filesystem/dist/index.js'), ...dirs],
    cwd: ROOT,
  };
}

/** Runs one action through the real executor (argument validation, ToolState, error results), with progress titles collected. */
export async function act(
  registry: ToolRegistry,
  name: string,
  args: Record<string, unknown>,
  timeoutMs = 20_000,
): Promise<ActionResult & { titles: string[] }> {
  const titles: string[] = [];
  const executor = new ActionExecutor(registry, { timeoutMs });
  const [result] = await executor.run(
    [{ id: newActionId(), name, args }],
    actContext({
      env: new MemoryEnv(),
      onState: (_a, s) => {
        if (s.status === 'running' && s.title) titles.push(s.title);
      },
    }),
  );
  return { ...result, titles };
}

/** Resolves with the first event of the manager that `match` accepts (or rejects after `ms`). */
export function nextEvent(manager: McpManager, match: (e: McpEvent) => boolean, ms = 15_000): Promise<McpEvent> {
  const p = new Promise<McpEvent>((resolvePromise, reject) => {
    const timer = setTimeout(() => (off(), reject(new Error(`no matching MCP event within ${ms} ms`))), ms);
    const off = manager.on((e) => {
      if (!match(e)) return;
      clearTimeout(timer);
      off();
      resolvePromise(e);
    });
  });
  // awaited by the test; a test that fails before awaiting it must not leave an unhandled rejection behind
  p.catch(() => undefined);
  return p;
}

/** Waits until `check` is true (polling), or fails after `ms`. */
export async function until(check: () => boolean, ms = 15_000, what = 'the condition'): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** True while a process with this pid exists. */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * A sampler that answers with `model` and adds up what it spent, as the caller that supplies a sampler must (the
 * stand-in for "the run's model through the run's middleware").
 */
export function countingSampler(model: Model): { sampler: McpSampler; spent: () => Tokens } {
  let spent = emptyTokens();
  return {
    sampler: {
      modelId: model.id,
      sample: async (request, { signal }) => {
        const r = await model.generate(request, { signal });
        spent = addTokens(spent, r.usage);
        return r;
      },
    },
    spent: () => spent,
  };
}
