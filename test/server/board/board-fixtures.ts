import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { expect } from 'vitest';
import { qitos, recordCalcRun } from '../../helpers/cli-harness.js';

const REPO = resolve(__dirname, '../../..');

/** What the board tests list: two recorded calculator runs (A answers 17 * 23, B 17 * 22) and a bench folder. */
export interface BoardFixture {
  /** The folder holding `traces/` and `bench/` (and the files they were made from). */
  dir: string;
  traces: string;
  bench: string;
  a: string;
  b: string;
}

/** Records the fixture's runs in `dir` with the real CLI (scripted models: no network). */
export async function boardFixture(dir: string): Promise<BoardFixture> {
  const traces = join(dir, 'traces');
  const a = (await recordCalcRun(dir)).traceDir;
  await writeFile(
    join(dir, 'b.json'),
    JSON.stringify([
      '{"thought": "compute it", "action": {"name": "calc", "args": {"expr": "17 * 22"}}}',
      '{"final_answer": "374"}',
    ]),
  );
  const b = (await recordCalcRun(dir, [], join(dir, 'b.json'))).traceDir;
  await writeFile(join(dir, 'package.json'), '{"type": "module"}\n');
  await writeFile(
    join(dir, 'agent.ts'),
    `import { AgentModule, baseState, type AgentModuleOptions, type State, type Task } from ${JSON.stringify(join(REPO, 'src/index.ts'))};
import { jsonParser } from ${JSON.stringify(join(REPO, 'src/kit/parsers/index.ts'))};
export default class Answerer extends AgentModule<State> {
  constructor(options: AgentModuleOptions = {}) { super({ ...options, parser: jsonParser() }); }
  initState(task: Task): State { return baseState(task, 3); }
}
`,
  );
  await writeFile(
    join(dir, 'suite.yaml'),
    'name: board-suite\ntasks: tasks.jsonl\nscorer: exact_match\nagent: ./agent.ts\n',
  );
  await writeFile(
    join(dir, 'tasks.jsonl'),
    ['t1', 't2', 't3']
      .map((id, i) => JSON.stringify({ id, objective: `answer ${id}`, expected: i === 0 ? '2' : '1' }))
      .join('\n') + '\n',
  );
  await writeFile(
    join(dir, 'answer.json'),
    JSON.stringify({
      replies: [{ text: '{"final_answer": "1"}', usage: { input: 50, output: 5 }, cost: 0.001 }],
      loop: true,
    }),
  );
  const bench = join(dir, 'bench');
  const r = await qitos(['bench', 'run', '.', '-o', 'bench', '-m', 'scripted:answer.json', '--no-progress'], dir);
  expect(r.code, r.err).toBe(0);
  return { dir, traces, bench, a, b };
}

/**
 * Writes a run folder `<root>/<runId>` from a recorded manifest, with `edit` applied: what the board lists, without
 * running an agent (a running run, thousands of runs).
 */
export async function copyRun(
  source: string,
  root: string,
  runId: string,
  edit: (m: Record<string, any>) => void = () => {},
): Promise<string> {
  const m = JSON.parse(await readFile(join(source, 'manifest.json'), 'utf8'));
  m.runId = runId;
  delete m.signature;
  edit(m);
  const dir = join(root, runId);
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, 'manifest.json'), JSON.stringify(m));
  return dir;
}
