import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { bashTool } from '../../../src/kit/tools/index.js';
import { callTool, envCases } from '../../helpers/qitos-env-fixtures.js';

const host = envCases.find((c) => c.name === 'host')!;

describe('bash tool (HostEnv)', () => {
  it('returns stdout, stderr and the exit code; a failing command is a normal result', async () => {
    const ws = host.make({ 'a.txt': 'hello\n' });
    try {
      const ok = await callTool(
        bashTool(),
        { command: 'cat a.txt; echo warn >&2', description: 'print a file' },
        ws.env,
      );
      expect(ok.status).toBe('success');
      expect(ok.seen).toBe('hello\n[stderr]\nwarn\n[exit code 0]');
      expect(ok.state.status === 'completed' && ok.state.title).toBe('print a file');
      const fail = await callTool(bashTool(), { command: 'ls missing-file' }, ws.env);
      expect(fail.status).toBe('success');
      expect(fail.seen).toMatch(
        /^\[stderr\]\nls: cannot access 'missing-file': No such file or directory\n\[exit code 2\]$/,
      );
      expect((await callTool(bashTool(), { command: 'true' }, ws.env)).seen).toBe('(no output)\n[exit code 0]');
      expect((await callTool(bashTool(), { command: 'pwd', cwd: 'sub' }, ws.env)).seen).toMatch(
        /not an existing folder/,
      );
    } finally {
      ws.cleanup();
    }
  });

  it('a command that never ends is killed at its timeout and reported as an error', async () => {
    const ws = host.make();
    try {
      const t0 = Date.now();
      // 2 s: time for a loaded machine to start the shell and print before the kill; killed, not left to sleep 60 s
      const r = await callTool(bashTool(), { command: 'echo started; sleep 60', timeoutMs: 2000 }, ws.env);
      expect(Date.now() - t0).toBeLessThan(30_000);
      expect(r.status).toBe('error');
      expect(r.seen).toMatch(
        /^Command timed out after 2000 ms and was killed with all its child processes\. Output before the kill \(first 2 KB\):\nstarted\n/,
      );
    } finally {
      ws.cleanup();
    }
  });

  it('megabytes of output stop the command with an error that says how to look at it instead', async () => {
    const ws = host.make();
    try {
      const r = await callTool(bashTool({ maxOutputBytes: 256 * 1024 }), { command: 'yes 0123456789' }, ws.env);
      expect(r.status).toBe('error');
      expect(r.seen).toMatch(/^Command printed more than 256 KB and was stopped\. First 2 KB:\n0123456789\n/);
      expect(r.seen).toMatch(/Redirect the output to a file/);
      expect(Buffer.byteLength(r.seen)).toBeLessThan(4096);
    } finally {
      ws.cleanup();
    }
  });

  it('long output is cut for the model with a note, and kept whole for the trace', async () => {
    const ws = host.make();
    try {
      const r = await callTool(bashTool(), { command: 'seq 1 5000' }, ws.env);
      expect(r.status).toBe('success');
      const seen = r.seen.split('\n');
      expect(seen.slice(0, 3)).toEqual(['1', '2', '3']);
      expect(r.seen).toMatch(/\[output truncated: showing 2000 of 5001 lines .* redirect it to a file/);
      expect(r.output).toBe(`${Array.from({ length: 5000 }, (_, i) => i + 1).join('\n')}\n[exit code 0]`);
    } finally {
      ws.cleanup();
    }
  });

  it('the timeout a call may ask for is capped by the schema', async () => {
    const ws = host.make();
    try {
      const r = await callTool(bashTool({ maxTimeoutMs: 1000 }), { command: 'true', timeoutMs: 5000 }, ws.env);
      expect(r.status).toBe('error');
      expect(r.seen).toMatch(/Invalid arguments for tool "bash"[\s\S]*timeoutMs/);
    } finally {
      ws.cleanup();
    }
  });

  it('runs with the cleared environment (HOME is the workspace)', async () => {
    const ws = host.make();
    try {
      process.env.QITOS_BASH_SECRET = 'leak';
      const r = await callTool(bashTool(), { command: 'echo "$HOME|$QITOS_BASH_SECRET"; echo hi > f.txt' }, ws.env);
      expect(r.seen).toBe(`${ws.files.root}|\n[exit code 0]`);
      expect(readFileSync(path.join(ws.files.root, 'f.txt'), 'utf8')).toBe('hi\n');
    } finally {
      delete process.env.QITOS_BASH_SECRET;
      ws.cleanup();
    }
  });
});
