import { afterEach, describe, expect, it } from 'vitest';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ScriptedModel } from '../../src/models/scripted-model.js';
import { defineSuite, exactMatch, loadSuite } from '../../src/bench/index.js';
import { parseSuiteFile } from '../../src/bench/suite-file.js';
import { parseTasks } from '../../src/bench/task-file.js';
import { tempDir } from '../helpers/bench-fixtures.js';
import { yamlBomb } from '../helpers/yaml-bomb.js';

const cleanups: Array<() => void> = [];
afterEach(() => {
  while (cleanups.length) cleanups.pop()!();
});
function folder(files: Record<string, string>): string {
  const t = tempDir('qitos-suite-');
  cleanups.push(t.cleanup);
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(join(t.dir, name, '..'), { recursive: true });
    writeFileSync(join(t.dir, name), text);
  }
  return t.dir;
}
const TASKS =
  '{"id": "a", "objective": "1+1?", "expected": "2"}\n\n{"id": "b", "objective": "2+2?", "expected": "4", "budget": {"maxSteps": 3}}\n';

describe('loadSuite from suite.yaml', () => {
  it('loads tasks, scorer, agent, budget and epochs from a folder', async () => {
    const dir = folder({
      'suite.yaml':
        'name: tiny\ndescription: two sums\ntasks: tasks.jsonl\nscorer:\n  type: exact_match\n  ' +
        'ignoreCase: true\nagent: ./agent.ts\nbudget:\n  maxSteps: 4\nepochs: 3\n',
      'tasks.jsonl': TASKS,
    });
    const s = await loadSuite(dir);
    expect(s).toMatchObject({
      name: 'tiny',
      description: 'two sums',
      dir,
      agent: join(dir, 'agent.ts'),
      budget: { maxSteps: 4 },
      epochs: 3,
    });
    expect(s.tasks.map((t) => [t.id, t.expected, t.budget])).toEqual([
      ['a', '2', {}],
      ['b', '4', { maxSteps: 3 }],
    ]);
    expect(s.scorer.name).toBe('exact_match');
    expect(
      await s.scorer.score({
        task: s.tasks[0],
        answer: 'TWO',
        expected: 'two',
        stopReason: 'final',
        steps: 1,
        state: undefined,
        env: undefined,
        traceDir: null,
        signal: new AbortController().signal,
      }),
    ).toMatchObject({ pass: true });
  });

  it('names the line and field of a value that does not validate', async () => {
    const dir = folder({
      'suite.yaml': 'name: tiny\ntasks: tasks.jsonl\nscorer:\n  type: numeric\n  tolerance: -1\n',
      'tasks.jsonl': TASKS,
    });
    await expect(loadSuite(dir)).rejects.toThrow(/suite\.yaml line 5, field "scorer\.tolerance": .*>=0/);
  });

  it('names an unknown field and its line', () => {
    expect(() => parseSuiteFile('name: x\ntasks: t.jsonl\nscorer: exact_match\nepocs: 3\n', 'suite.yaml')).toThrow(
      'suite.yaml line 4, field "epocs": unknown field',
    );
    expect(() =>
      parseSuiteFile('name: x\ntasks: t.jsonl\nscorer: exact_match\nbudget:\n  maxStep: 3\n', 'suite.yaml'),
    ).toThrow('suite.yaml line 5, field "budget.maxStep": unknown field');
  });

  it('names a missing field, a wrong type and bad YAML', () => {
    expect(() => parseSuiteFile('name: x\nscorer: exact_match\n', 's.yaml')).toThrow(
      /s\.yaml line 1, field "tasks": required field missing/,
    );
    expect(() => parseSuiteFile('name: x\ntasks: t.jsonl\nscorer: exact_match\nepochs: two\n', 's.yaml')).toThrow(
      /line 4, field "epochs": .*expected number/,
    );
    expect(() => parseSuiteFile('name: x\ntasks: [t.jsonl\n', 's.yaml')).toThrow(/s\.yaml line \d+: invalid YAML/);
    expect(() => parseSuiteFile(`name: x\n${yamlBomb('x')}`, 's.yaml')).toThrow(
      's.yaml line 3: invalid YAML: YAML aliases expand to too much data (more than 100 alias expansions; the first alias is here)',
    );
    expect(() => parseSuiteFile('name: x y\ntasks: t\nscorer: exact_match\n', 's.yaml')).toThrow(
      /line 1, field "name": use letters/,
    );
  });

  it('rejects a duplicate task id naming both lines', async () => {
    const dir = folder({
      'suite.yaml': 'name: d\ntasks: tasks.jsonl\nscorer: exact_match\n',
      'tasks.jsonl': '{"id":"a","objective":"x"}\n{"id":"b","objective":"y"}\n{"id":"a","objective":"z"}\n',
    });
    await expect(loadSuite(dir)).rejects.toThrow(/tasks\.jsonl: duplicate task id "a" on line 3 \(first on line 1\)/);
  });

  it('names the line and field of a bad task line', () => {
    expect(() => parseTasks('{"id":"a","objective":"x"}\n{"id":"b","objective":""}\n', { file: 't.jsonl' })).toThrow(
      /t\.jsonl line 2: field "objective": objective must not be empty/,
    );
    expect(() => parseTasks('{"id":"a","objective":"x","expcted":"1"}\n', { file: 't.jsonl' })).toThrow(
      't.jsonl line 1: unknown field "expcted"',
    );
    expect(() => parseTasks('{"id":"a",\n', { file: 't.jsonl' })).toThrow(/t\.jsonl line 1: not JSON/);
    expect(() => parseTasks('\n\n', { file: 't.jsonl' })).toThrow(/no tasks/);
  });

  it('reads GAIA question/answer lines', async () => {
    const dir = folder({
      'suite.yaml': 'name: g\ntasks: data/metadata.jsonl\nformat: gaia\nscorer: gaia\n',
      'data/metadata.jsonl':
        '{"task_id": "c61d", "Question": "How many?", "Level": 1, "Final answer": "17", ' +
        '"file_name": "", "Annotator Metadata": {"Steps": "count"}}\n{"task_id": "e1fc", ' +
        '"Question": "Which file?", "Level": "2", "Final answer": "x", "file_name": ' +
        '"sheet.xlsx"}\n',
    });
    const s = await loadSuite(dir);
    expect(s.tasks[0]).toMatchObject({
      id: 'c61d',
      objective: 'How many?',
      expected: '17',
      resources: {},
      metadata: { level: 1, 'Annotator Metadata': { Steps: 'count' } },
    });
    expect(s.tasks[1]).toMatchObject({
      resources: { file: join(dir, 'data', 'sheet.xlsx') },
      metadata: { level: '2', file_name: 'sheet.xlsx' },
    });
    expect(s.scorer.name).toBe('gaia');
  });

  it('loads a custom scorer module from the suite folder, and refuses one outside it', async () => {
    const dir = folder({
      'suite.yaml': 'name: c\ntasks: tasks.jsonl\nscorer:\n  type: custom\n  module: ./check.ts\n  export: check\n',
      'tasks.jsonl': TASKS,
      'check.ts': 'export function check({ answer }: { answer: string | null }) { return answer === "ok"; }\n',
    });
    const s = await loadSuite(dir);
    expect(s.scorer.name).toBe('check');
    const outside = folder({
      'suite.yaml': 'name: c\ntasks: tasks.jsonl\nscorer:\n  type: custom\n  module: ../elsewhere.ts\n',
      'tasks.jsonl': TASKS,
    });
    await expect(loadSuite(outside)).rejects.toThrow(/outside the suite folder/);
    const missing = folder({
      'suite.yaml': 'name: c\ntasks: tasks.jsonl\nscorer:\n  type: custom\n  module: ./check.ts\n  export: nope\n',
      'tasks.jsonl': TASKS,
      'check.ts': 'export const x = 1;\n',
    });
    await expect(loadSuite(missing)).rejects.toThrow(/has no export "nope".*exports: x/);
  });

  it('builds an llm_judge scorer with the model factory it is given, and says when there is none', async () => {
    const dir = folder({
      'suite.yaml':
        'name: j\ntasks: tasks.jsonl\nscorer:\n  type: llm_judge\n  model: openai:gpt-4o-mini\n  threshold: 0.7\n',
      'tasks.jsonl': TASKS,
    });
    const asked: string[] = [];
    const s = await loadSuite(dir, { createModel: (spec) => (asked.push(spec), new ScriptedModel([], { id: spec })) });
    expect(asked).toEqual(['openai:gpt-4o-mini']);
    expect(s.scorer.name).toBe('llm_judge(openai:gpt-4o-mini)');
    await expect(loadSuite(dir)).rejects.toThrow(/llm_judge needs a model factory/);
  });

  it('says what it looked for when a folder has no suite', async () => {
    await expect(loadSuite(folder({ 'x.txt': '' }))).rejects.toThrow(
      /expected one of suite\.yaml, suite\.yml, suite\.ts/,
    );
    await expect(loadSuite('/nonexistent/suite')).rejects.toThrow(/no such file or folder/);
  });
});

describe('defineSuite and TS suite modules', () => {
  it('loads a module exporting defineSuite(...) with generated tasks', async () => {
    const dir = folder({
      'suite.ts': `import { defineSuite, exactMatch } from '${join(process.cwd(), 'src/bench/index.ts')}';
export default defineSuite({ name: 'gen', agent: './agent.ts', scorer: exactMatch(), tasks: async () => [1, 2, 3].map((i) => ({ id: 'g' + i, objective: i + '?', expected: String(i) })) });
`,
    });
    const s = await loadSuite(dir);
    expect(s).toMatchObject({ name: 'gen', epochs: 1, agent: join(dir, 'agent.ts') });
    expect(s.tasks.map((t) => t.id)).toEqual(['g1', 'g2', 'g3']);
  });

  it('checks what it can at definition time and duplicate ids at load time', async () => {
    expect(() => defineSuite({ name: 'bad name', tasks: [], scorer: exactMatch() })).toThrow(/field "name"/);
    expect(() => defineSuite({ name: 'x', tasks: [], scorer: {} as never })).toThrow(/field "scorer"/);
    const dir = folder({
      'suite.ts': `import { defineSuite, exactMatch } from '${join(process.cwd(), 'src/bench/index.ts')}';
export const suite = defineSuite({ name: 'dup', scorer: exactMatch(), tasks: [{ id: 'a', objective: 'x' }, { id: 'a', objective: 'y' }] });
`,
    });
    await expect(loadSuite(dir)).rejects.toThrow(/duplicate task id "a" at tasks\[1\] \(first at tasks\[0\]\)/);
    const none = folder({ 'suite.ts': 'export const x = 1;\n' });
    await expect(loadSuite(none)).rejects.toThrow(/exports no defineSuite\(\.\.\.\) result/);
  });
});

describe('scorer specs', () => {
  it('names an unknown scorer type and a missing scorer option', () => {
    expect(() => parseSuiteFile('name: x\ntasks: t.jsonl\nscorer: exact_matc\n', 's.yaml')).toThrow(
      's.yaml line 3, field "scorer.type": unknown scorer type: expected one of exact_match, contains',
    );
    expect(() => parseSuiteFile('name: x\ntasks: t.jsonl\nscorer:\n  type: json_field\n', 's.yaml')).toThrow(
      /line 4, field "scorer.path": required field missing/,
    );
  });
});
