import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Engine } from '../../../src/engine/engine.js';
import { readTrace } from '../../../src/trace/index.js';
import { MemoryEnv } from '../../../src/envs/index.js';
import { bashTool, builtinTools, editTool, readTool, writeTool } from '../../../src/kit/tools/index.js';
import { envCases } from '../../helpers/qitos-env-fixtures.js';
import { callReply, finalReply, scriptedAgent, toolResultsIn } from '../../helpers/qitos-tools-agent.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe('tools inside an Engine run', () => {
  it('a process tool over MemoryEnv stops the run before step 1 with env_capability_mismatch naming tool and group', async () => {
    const traces = mkdtempSync(path.join(tmpdir(), 'qitos-cap-'));
    dirs.push(traces);
    const { agent, model } = scriptedAgent([finalReply('never asked')], { tools: [readTool(), bashTool()] });
    const run = await new Engine({ agent, env: new MemoryEnv(), trace: { dir: traces } }).run('list files');
    expect(run.stopReason).toBe('env_capability_mismatch');
    expect(run.stopMessage).toBe('env "memory" lacks capabilities: tool "bash" needs op group "process"');
    expect(run.steps).toBe(0);
    expect(model.served).toBe(0);
    const trace = await readTrace(run.traceDir!);
    expect(trace.manifest.status).toBe('failed');
    expect(trace.steps).toHaveLength(0);
  });

  it('builtinTools({ bash: false }) passes the preflight on MemoryEnv', async () => {
    const { agent } = scriptedAgent([finalReply('done')], { tools: builtinTools({ bash: false }) });
    const run = await new Engine({ agent, env: new MemoryEnv(), trace: false }).run('nothing to do');
    expect(run.stopReason).toBe('final');
  });

  for (const kind of envCases) {
    it(`on ${kind.name}: failing tool calls come back to the model as errors, the run goes on, nothing outside changes`, async () => {
      const ws = kind.make({ 'app.txt': 'value = 1\nvalue = 1\n' });
      const before = ws.outside();
      try {
        const { agent, model } = scriptedAgent(
          [
            callReply('read', { path: '../outside/secret.txt' }),
            callReply('write', { path: '../ws2/secret.txt', content: 'pwned' }),
            callReply('edit', { path: 'app.txt', oldString: 'value = 1', newString: 'value = 2' }),
            callReply('edit', { path: 'app.txt', oldString: 'value = 1', newString: 'value = 2', replaceAll: true }),
            (req) => ({
              text: finalReply(
                toolResultsIn(req)
                  .map((r) => `${r.name}:${r.isError ? 'error' : 'ok'}`)
                  .join(','),
              ),
            }),
          ],
          { tools: [readTool(), writeTool(), editTool()] },
        );
        const run = await new Engine({ agent, env: ws.env, trace: false }).run('change the value');
        expect(run.stopReason).toBe('final');
        expect(run.finalResult).toBe('read:error,write:error,edit:error,edit:ok');
        const seen = toolResultsIn(model.requests[4]);
        expect(seen[0].output).toMatch(/outside the workspace/);
        expect(seen[2].output).toMatch(/oldString occurs 2 times in "app.txt" \(at lines 1, 2\)/);
        expect(await ws.files.readText('app.txt')).toBe('value = 2\nvalue = 2\n');
        expect(ws.outside()).toEqual(before);
      } finally {
        ws.cleanup();
      }
    });
  }
});
