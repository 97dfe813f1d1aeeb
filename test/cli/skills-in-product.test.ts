import type { ChildProcess } from 'node:child_process';
import { cp, mkdir, readdir, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import OpenAI from 'openai';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readTrace } from '../../src/trace/index.js';
import {
  CALC_AGENT,
  CALC_SCRIPT,
  CONFIG_HOME,
  FIXTURES,
  qitos,
  serveProcess,
  tempDir,
  type ServeProcess,
} from '../helpers/cli-harness.js';
import { requires } from '../helpers/requires.js';

const SKILLS = resolve(FIXTURES, 'skills-with-scripts');

let dir: string;
let cleanup: () => Promise<void>;
const children: ChildProcess[] = [];
beforeEach(async () => {
  ({ dir, cleanup } = await tempDir('qitos-skills-product-'));
  // The retrieval index is written under the root: the test works on a copy of the fixture skills.
  await cp(SKILLS, join(dir, 'skills'), { recursive: true });
  await mkdir(join(dir, 'ws'));
});
afterEach(async () => {
  for (const c of children.splice(0)) if (c.exitCode === null) c.kill('SIGKILL');
  await cleanup();
});

const config = async (yaml: string) => writeFile(join(dir, 'qitos.yaml'), yaml);
const toolsOf = async (args: string[]) => {
  const r = await qitos(
    [
      'run',
      CALC_AGENT,
      '-c',
      'qitos.yaml',
      '--model',
      `scripted:${CALC_SCRIPT}`,
      '--task',
      'What is 17 * 23?',
      '--json',
      ...args,
    ],
    dir,
  );
  expect(r.code, r.err).toBe(0);
  const trace = await readTrace(JSON.parse(r.out).traceDir);
  return { tools: trace.manifest.tools, trace, err: r.err };
};

describe('skills: in the config (qitos run)', () => {
  it.runIf(requires('bwrap'))(
    'scripts run by default where bubblewrap works and the run has a workspace; scripts: off turns them off',
    async () => {
      await config('skills:\n  roots: [skills]\nenv:\n  type: host\n  root: ws\n');
      expect((await toolsOf([])).tools).toEqual(expect.arrayContaining(['skill', 'run_skill_script']));
      await config('skills:\n  roots: [skills]\n  scripts: off\nenv:\n  type: host\n  root: ws\n');
      expect((await toolsOf([])).tools).not.toContain('run_skill_script');
    },
  );

  it('without a workspace no script runs; scripts: sandbox without one is an error naming what to give', async () => {
    await config('skills:\n  roots: [skills]\n');
    const plain = await toolsOf([]);
    expect(plain.tools).toContain('skill');
    expect(plain.tools).not.toContain('run_skill_script');
    await config('skills:\n  roots: [skills]\n  scripts: sandbox\n');
    const refused = await qitos(
      ['run', CALC_AGENT, '-c', 'qitos.yaml', '--model', `scripted:${CALC_SCRIPT}`, '--task', 'x'],
      dir,
    );
    expect(refused.code).toBe(2);
    expect(refused.err).toMatch(
      /skills\.scripts: sandbox runs scripts in the run's workspace: give one \(--workspace <dir>/,
    );
  });

  it('disclosure: retrieval gives find_skills, lists the pinned skills only, and records the selection', async () => {
    await config('skills:\n  roots: [skills]\n  disclosure: retrieval\n  pinned: [unrelated-poetry]\n  scripts: off\n');
    const { tools, trace } = await toolsOf([]);
    expect(tools).toEqual(expect.arrayContaining(['skill', 'find_skills']));
    const disclosed = trace.events.find((e) => (e.data as { event?: string }).event === 'skills:disclosed');
    expect((disclosed?.data as { data: { skills: Array<{ name: string }> } }).data.skills.map((s) => s.name)).toEqual([
      'unrelated-poetry',
    ]);
    await config('skills:\n  roots: [skills, ws]\n  disclosure: retrieval\n');
    const two = await qitos(
      ['run', CALC_AGENT, '-c', 'qitos.yaml', '--model', `scripted:${CALC_SCRIPT}`, '--task', 'x'],
      dir,
    );
    expect(two.err).toMatch(/skills\.disclosure: retrieval searches one skills root/);
  });
});

/** `qitos serve …` in this test's folder, killed after the test. */
async function serve(args: string[]): Promise<ServeProcess> {
  const s = await serveProcess(args, dir, { XDG_CONFIG_HOME: CONFIG_HOME });
  children.push(s.child);
  return s;
}

describe('seed 004 chat flow through qitos serve', () => {
  it.runIf(requires('bwrap'))(
    'a question -> find_skills finds the skill -> SKILL.md loaded -> its script runs sandboxed -> the answer; traced, replayable',
    async () => {
      await config('skills:\n  roots: [skills]\n  disclosure: retrieval\nenv:\n  type: host\n  root: ws\n');
      const replies = [
        'Thought: a skill may compute this.\nAction: find_skills\nAction Input: {"query": "mean and median of a list of numbers"}',
        'Thought: load it.\nAction: skill(name="number-stats")',
        'Thought: run its script.\nAction: run_skill_script\nAction Input: {"name": ' +
          '"number-stats", "script": "stats.mjs", "args": {"numbers": [2, 4, 9]}}',
        'Thought: the script printed the figures.\nFinal Answer: The mean is 5 and the median is 4.',
      ];
      await writeFile(join(dir, 'replies.json'), JSON.stringify(replies.map((text) => ({ text }))));
      const s = await serve([
        '--agent',
        join(FIXTURES, 'agents/react-agent.ts'),
        '--name',
        'react',
        '-c',
        'qitos.yaml',
        '--model',
        `scripted:${join(dir, 'replies.json')}`,
        '--port',
        '0',
      ]);
      const reply = await new OpenAI({ baseURL: `${s.url}/v1`, apiKey: 'x', maxRetries: 0 }).chat.completions.create({
        model: 'react',
        messages: [{ role: 'user', content: 'What are the mean and median of 2, 4 and 9?' }],
      });
      expect(reply.choices[0]!.message.content).toBe('The mean is 5 and the median is 4.');
      const steps = (reply.choices[0]!.message as { reasoning_content?: string }).reasoning_content!;
      expect(steps).toMatch(/\[tool result\] find_skills: [\s\S]*number-stats/);
      expect(steps).toMatch(/\[tool result\] skill: [\s\S]*Run the `stats\.mjs` script/);
      expect(steps).toMatch(/\[tool result\] run_skill_script: [\s\S]*"mean": 5,[\s\S]*"median": 4/);
      s.child.kill('SIGTERM');
      expect(await s.exit).toBe(0);

      const [runId] = await readdir(join(dir, 'traces'));
      const trace = await readTrace(join(dir, 'traces', runId!));
      expect(trace.manifest.summary).toMatchObject({
        stopReason: 'final',
        finalResult: 'The mean is 5 and the median is 4.',
      });
      expect(trace.steps.map((st) => st.results.map((r) => `${r.name}:${r.status}`))).toEqual([
        ['find_skills:success'],
        ['skill:success'],
        ['run_skill_script:success'],
        [],
      ]);
      const replay = await qitos(['replay', join(dir, 'traces', runId!), '--json'], dir);
      expect(replay.code, replay.err).toBe(0);
      expect(JSON.parse(replay.out)).toMatchObject({ matched: true });
    },
    90_000,
  );
});
