import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FIXTURES, qitos, tempDir } from '../helpers/cli-harness.js';
import { requires } from '../helpers/requires.js';

const FILE_AGENT = join(FIXTURES, 'agents/file-agent.ts');
const SCRIPT = `scripted:${join(FIXTURES, 'scripts/read-file.json')}`;

let dir: string;
let cleanup: () => Promise<void>;
beforeEach(async () => ({ dir, cleanup } = await tempDir()));
afterEach(() => cleanup());

async function workspace(): Promise<string> {
  const ws = join(dir, 'ws');
  await mkdir(ws);
  await writeFile(join(ws, 'notes.txt'), 'alpha\nbeta\ngamma\n');
  return ws;
}

describe('qitos run --workspace', () => {
  it.runIf(requires('bwrap'))('gives file and shell tools a jailed host workspace, recorded for replay', async () => {
    await workspace();
    const r = await qitos(
      ['run', FILE_AGENT, '-t', 'count the lines', '-m', SCRIPT, '--workspace', 'ws', '--json'],
      dir,
    );
    expect(r.code, r.err).toBe(0);
    const { traceDir } = JSON.parse(r.out);
    const steps = (await readFile(join(traceDir, 'steps.jsonl'), 'utf8'))
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(steps[0].results[0]).toMatchObject({
      name: 'read',
      status: 'success',
      output: expect.stringContaining('beta'),
    });
    expect(steps[1].results[0]).toMatchObject({
      name: 'bash',
      status: 'success',
      output: expect.stringMatching(/^3\b/),
    });
    const m = JSON.parse(await readFile(join(traceDir, 'manifest.json'), 'utf8'));
    expect(m.env).toEqual({ name: 'host', sandbox: 'bwrap' });
    expect(r.err).not.toMatch(/warning/);
    expect(m.config.env).toEqual({ type: 'host', root: join(dir, 'ws') });
    // replay rebuilds the same env from the recorded config, from another folder
    const other = join(dir, 'elsewhere');
    await mkdir(other);
    const replay = await qitos(['replay', traceDir, '--json'], other);
    expect(replay.code, replay.err + replay.out).toBe(0);
  });

  it('where bubblewrap does not work, says so once and records sandbox "none" in the manifest', async () => {
    await workspace();
    await writeFile(
      join(dir, 'q.yaml'),
      ['env:', '  type: host', '  root: ws', '  sandbox:', '    bwrap: /nonexistent/bwrap'].join('\n'),
    );
    const r = await qitos(['run', FILE_AGENT, '-t', 'count the lines', '-m', SCRIPT, '-c', 'q.yaml', '--json'], dir);
    expect(r.code, r.err).toBe(0);
    expect(r.err).toBe(
      'warning: commands run without a sandbox: "/nonexistent/bwrap" was not found (install the ' +
        'bubblewrap package). They can read and write whatever this user can, and reach the ' +
        'network.\n',
    );
    const m = JSON.parse(await readFile(join(JSON.parse(r.out).traceDir, 'manifest.json'), 'utf8'));
    expect(m.env).toEqual({ name: 'host', sandbox: 'none' });
  });

  it('without an env, the run stops before step 1 naming the tools and op groups', async () => {
    const r = await qitos(['run', FILE_AGENT, '-t', 'count', '-m', SCRIPT, '--json'], dir);
    expect(r.code).toBe(1);
    const res = JSON.parse(r.out);
    expect(res.stopReason).toBe('env_capability_mismatch');
    expect(res.stopMessage).toMatch(/tool "bash" needs op group "process"/);
  });

  it('a missing workspace folder is a one-line error', async () => {
    const r = await qitos(['run', FILE_AGENT, '-t', 'count', '-m', SCRIPT, '--workspace', 'nope'], dir);
    expect(r.code).not.toBe(0);
    expect(r.err).toMatch(/^qitos: env: HostEnv root .*nope does not exist/);
    expect(r.err.trim().split('\n')).toHaveLength(1);
  });

  it('a memory env from the config file serves files without touching disk', async () => {
    await writeFile(
      join(dir, 'q.yaml'),
      ['env:', '  type: memory', '  files:', '    notes.txt: "one\\ntwo\\n"'].join('\n'),
    );
    const script = join(dir, 'read-only.json');
    await writeFile(
      script,
      JSON.stringify([
        { text: '{"action": {"name": "read", "args": {"path": "notes.txt"}}}' },
        { text: '{"final_answer": "ok"}' },
      ]),
    );
    const READ_AGENT = join(dir, 'read-agent.ts');
    await writeFile(
      READ_AGENT,
      `import { AgentModule } from '${join(FIXTURES, '../../src/engine/agent-module.js')}';\n` +
        `import { baseState } from '${join(FIXTURES, '../../src/core/index.js')}';\n` +
        `import { jsonParser } from '${join(FIXTURES, '../../src/kit/parsers/json-parser.js')}';\n` +
        `import { readTool } from '${join(FIXTURES, '../../src/kit/tools/index.js')}';\n` +
        `export default class ReadAgent extends AgentModule { constructor(o = {}) { super({ ...o, ` +
        `parser: jsonParser(), tools: [readTool()] }); } initState(t) { return baseState(t, 4); } ` +
        `}\n`,
    );
    const r = await qitos(['run', READ_AGENT, '-t', 'read', '-m', `scripted:${script}`, '-c', 'q.yaml', '--json'], dir);
    expect(r.code, r.err).toBe(0);
    const steps = (await readFile(join(JSON.parse(r.out).traceDir, 'steps.jsonl'), 'utf8'))
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(steps[0].results[0].output).toContain('two');
  });

  it('an invalid env section names the field', async () => {
    await writeFile(join(dir, 'q.yaml'), ['env:', '  type: docker'].join('\n'));
    const r = await qitos(['run', FILE_AGENT, '-t', 'x', '-m', SCRIPT, '-c', 'q.yaml'], dir);
    expect(r.code).not.toBe(0);
    expect(r.err).toMatch(/env\.type/);
  });
});
