import { mkdirSync, mkdtempSync, readdirSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Action, ActionResult, AnyTool, Env, FileOps } from '../../src/core/index.js';
import { ActionExecutor } from '../../src/engine/action-executor.js';
import { ToolRegistry } from '../../src/engine/tool-registry.js';
import { HostEnv, MemoryEnv } from '../../src/envs/index.js';
import { fileTree } from './file-tree.js';
import { actContext } from '../../src/kit/testing/tool-context.js';

/** A workspace for one test: the env, its file ops, and a way to prove nothing outside it changed. */
export interface Workspace {
  env: Env;
  files: FileOps;
  /** Everything outside the workspace that a test could damage (empty for MemoryEnv: it has no outside). */
  outside(): Record<string, string>;
  cleanup(): void;
}

/** Makes a workspace with the given files, for one env kind. */
export interface EnvCase {
  name: 'host' | 'memory';
  make(files?: Record<string, string | Uint8Array>): Workspace;
}

/** A fresh temp folder `<base>` with an empty workspace `<base>/ws` and `<base>/outside` holding `outsideFiles`. */
export function tempWorkspace(
  prefix: string,
  outsideFiles: Record<string, string> = {},
): { base: string; root: string; outside: string } {
  const base = realpathSync(mkdtempSync(path.join(tmpdir(), prefix)));
  const root = path.join(base, 'ws');
  const outside = path.join(base, 'outside');
  mkdirSync(root);
  mkdirSync(outside);
  for (const [p, c] of Object.entries(outsideFiles)) {
    mkdirSync(path.dirname(path.join(outside, p)), { recursive: true });
    writeFileSync(path.join(outside, p), c);
  }
  return { base, root, outside };
}

/** HostEnv in a fresh temp folder (`<tmp>/ws`, with `<tmp>/outside/secret.txt` and `<tmp>/ws2/secret.txt` next to it) and MemoryEnv. */
export const envCases: EnvCase[] = [
  {
    name: 'host',
    make(files = {}) {
      const { base, root } = tempWorkspace('qitos-ws-', { 'secret.txt': 'outside secret' });
      mkdirSync(path.join(base, 'ws2'));
      writeFileSync(path.join(base, 'ws2', 'secret.txt'), 'sibling secret');
      for (const [p, c] of Object.entries(files)) {
        mkdirSync(path.dirname(path.join(root, p)), { recursive: true });
        writeFileSync(path.join(root, p), c);
      }
      const env = new HostEnv({ root, timeoutMs: 5000 });
      return {
        env,
        files: env.files,
        outside: () => ({
          ...prefix('outside/', fileTree(path.join(base, 'outside'))),
          ...prefix('ws2/', fileTree(path.join(base, 'ws2'))),
          top: readdirSync(base).sort().join(','),
        }),
        cleanup: () => {
          env.close();
          rmSync(base, { recursive: true, force: true });
        },
      };
    },
  },
  {
    name: 'memory',
    make(files = {}) {
      const env = new MemoryEnv({ files });
      return { env, files: env.files, outside: () => ({}), cleanup: () => undefined };
    },
  },
];

function prefix(p: string, rec: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(rec).map(([k, v]) => [p + k, v]));
}

/** Options of {@link callTool}. */
export interface CallOptions {
  services?: Record<string, unknown>;
  state?: unknown;
  runId?: string;
  traceDir?: string | null;
  timeoutMs?: number;
  signal?: AbortSignal;
}

/**
 * Calls a tool the way the engine does (ActionExecutor: zod validation, timeout, error capture) and returns
 * the ActionResult plus what the model sees (`seen`: the completed output or the error).
 */
export async function callTool(
  tool: AnyTool,
  args: Record<string, unknown>,
  env: Env,
  opts: CallOptions = {},
): Promise<ActionResult & { seen: string }> {
  const executor = new ActionExecutor(new ToolRegistry([tool]), { timeoutMs: opts.timeoutMs ?? 10_000 });
  const action: Action = { id: `call_${Math.random().toString(36).slice(2, 8)}`, name: tool.id, args };
  const [r] = await executor.run(
    [action],
    actContext({
      runId: opts.runId ?? 'run_test',
      traceDir: opts.traceDir ?? null,
      env,
      state: opts.state ?? { metadata: {} },
      signal: opts.signal ?? new AbortController().signal,
      services: opts.services ?? {},
    }),
  );
  const seen = r.state.status === 'completed' ? r.state.output : r.state.status === 'error' ? r.state.error : '';
  return { ...r, seen };
}
