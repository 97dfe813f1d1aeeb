import { appendFile, mkdir, readFile, rm, symlink, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BoardIndex } from '../../../src/server/board/board-index.js';
import { folderOutsideRoot } from '../../../src/server/board/folder-jail.js';
import { recordCalcRun, tempDir } from '../../helpers/cli-harness.js';
import { copyRun } from './board-fixtures.js';

let dir: string;
let cleanup: () => Promise<void>;
let recorded: string;

beforeAll(async () => {
  ({ dir, cleanup } = await tempDir('qitos-board-index-'));
  recorded = (await recordCalcRun(dir)).traceDir;
});
afterAll(() => cleanup?.());

/** A fresh folder under the test's temp dir. */
async function folder(name: string): Promise<string> {
  const p = join(dir, name);
  await mkdir(p, { recursive: true });
  return p;
}

const stepLine = (step: number, input: number, cost: number | null) =>
  JSON.stringify({ step, tokens: { input, output: 10, reasoning: 0, cache: { read: 0, write: 0 } }, cost }) + '\n';

describe('BoardIndex', () => {
  it('lists the runs under its roots with what the board shows, and bench folders with their runs', async () => {
    const root = await folder('list');
    await copyRun(recorded, root, 'run-a', (m) => (m.agent.variant = 'temperature 0.2'));
    await copyRun(recorded, root, 'run-b');
    await copyRun(recorded, join(root, 'bench-x', 'traces'), 'run-c');
    await writeFile(join(root, 'bench-x', 'results.jsonl'), '');
    const index = new BoardIndex([root]);
    await index.refresh();
    const rows = new Map(index.rows().map((r) => [r.runId, r]));
    expect([...rows.keys()].sort()).toEqual(['run-a', 'run-b', 'run-c']);
    expect(rows.get('run-a')).toMatchObject({
      id: '0/run-a',
      path: 'run-a',
      agent: 'CalcAgent',
      task: 'What is 17 * 23?',
      status: 'completed',
      stopReason: 'final',
      steps: 2,
      tokens: 312,
      cost: 0.0027,
      variant: 'temperature 0.2',
      bench: null,
    });
    expect(rows.get('run-a')!.model).toMatch(/^scripted:/);
    expect(rows.get('run-a')!.durationMs).toBeGreaterThan(0);
    // without a label, the variant is a digest of the settings: the same for runs that ran the same way
    expect(rows.get('run-b')!.variant).toMatch(/^settings [0-9a-f]{8}$/);
    expect(rows.get('run-c')).toMatchObject({ id: '0/bench-x/traces/run-c', bench: '0/bench-x' });
    expect(rows.get('run-c')!.variant).toBe(rows.get('run-b')!.variant);
    expect(index.benchList().map((b) => [b.id, b.trials])).toEqual([['0/bench-x', 0]]);
    expect(index.runDir('0/run-a')!.dir).toBe(join(root, 'run-a'));
    for (const id of ['0/../list/run-a', '0/run-a/', 'run-a', '1/run-a', '0/./run-a', '0/bench-x/traces/../../run-a'])
      expect(index.runDir(id), id).toBeUndefined();
  });

  it('a refresh reads only what changed, and tells clients what changed since the version they hold', async () => {
    const root = await folder('incremental');
    await copyRun(recorded, root, 'one');
    await copyRun(recorded, root, 'two');
    const index = new BoardIndex([root]);
    await index.refresh();
    const v1 = index.version;
    expect(index.changesSince(0)).toBeUndefined(); // a new client takes the whole list
    await index.refresh();
    expect(index.version).toBe(v1);
    expect(index.changesSince(v1)).toEqual({ version: v1, rows: [], benches: [], removed: [] });
    await copyRun(recorded, root, 'two', (m) => (m.summary.steps = 7));
    await copyRun(recorded, root, 'three');
    await rm(join(root, 'one'), { recursive: true });
    await index.refresh();
    const changes = index.changesSince(v1)!;
    expect(changes.version).toBe(v1 + 1);
    expect(changes.rows.map((r) => [r.runId, r.steps]).sort()).toEqual([
      ['three', 2],
      ['two', 7],
    ]);
    expect(changes.removed).toEqual(['0/one']);
    expect(index.changesSince(v1 + 5)).toBeUndefined(); // a version from another board
  });

  it('with a cache, a new index reads no manifest whose mtime and size are unchanged, and reads those that changed', async () => {
    const root = await folder('cached');
    const cacheDir = join(dir, 'cache');
    const same = await copyRun(recorded, root, 'same');
    await copyRun(recorded, root, 'grown');
    const file = join(same, 'manifest.json');
    const time = new Date('2026-01-02T03:04:05Z'); // whole seconds: utimes sets them exactly
    await utimes(file, time, time);
    await new BoardIndex([root], { cacheDir }).refresh();
    // Same size, same mtime, other content: a reader that trusts the cache shows the old name.
    await writeFile(file, (await readFile(file, 'utf8')).replace('"CalcAgent"', '"CalcAgenX"'));
    await utimes(file, time, time);
    await copyRun(recorded, root, 'grown', (m) => (m.agent.name = 'GrownAgent'));
    const warm = new BoardIndex([root], { cacheDir });
    await warm.refresh();
    const agents = Object.fromEntries(warm.rows().map((r) => [r.runId, r.agent]));
    expect(agents).toEqual({ same: 'CalcAgent', grown: 'GrownAgent' });
    // without the cache every manifest is read
    const cold = new BoardIndex([root]);
    await cold.refresh();
    expect(Object.fromEntries(cold.rows().map((r) => [r.runId, r.agent]))).toEqual({
      same: 'CalcAgenX',
      grown: 'GrownAgent',
    });
  });

  it('a cache file that is not JSON or belongs to another folder is rebuilt, not trusted', async () => {
    const root = await folder('bad-cache');
    const cacheDir = join(dir, 'bad-cache-dir');
    await copyRun(recorded, root, 'r1');
    const first = new BoardIndex([root], { cacheDir });
    await first.refresh();
    const { readdir } = await import('node:fs/promises');
    const [name] = await readdir(cacheDir);
    await writeFile(
      join(cacheDir, name),
      '{"schema": "qitos.board-index", "version": 1, "root": "/elsewhere", "runs": [["r1", 0, 0, null, "x"]]}',
    );
    const again = new BoardIndex([root], { cacheDir });
    await again.refresh();
    expect(again.rows().map((r) => r.runId)).toEqual(['r1']);
    await writeFile(join(cacheDir, name), '{not json');
    const third = new BoardIndex([root], { cacheDir });
    await third.refresh();
    expect(third.rows().map((r) => r.runId)).toEqual(['r1']);
  });

  it("a running run's steps, tokens and cost follow its steps.jsonl; a half-written line waits; the end replaces them", async () => {
    const root = await folder('live');
    const run = await copyRun(recorded, root, 'live-run', (m) => {
      m.status = 'running';
      m.summary = null;
    });
    const index = new BoardIndex([root]);
    await index.refresh();
    expect(index.rows()[0]).toMatchObject({ status: 'running', steps: 0, tokens: 0, cost: 0 });
    const v = index.version;
    await writeFile(join(run, 'steps.jsonl'), stepLine(1, 100, 0.001) + '{"step": 2, "tok');
    await index.refresh();
    expect(index.changesSince(v)!.rows).toMatchObject([{ runId: 'live-run', steps: 1, tokens: 110, cost: 0.001 }]);
    await appendFile(
      join(run, 'steps.jsonl'),
      'ens": {"input": 5, "output": 1, "reasoning": 0, "cache": {"read": 0, "write": 0}}, "cost": null}\n',
    );
    await index.refresh();
    expect(index.rows()[0]).toMatchObject({ steps: 2, tokens: 116, cost: null });
    await copyRun(recorded, root, 'live-run'); // the engine replaces the manifest at the end
    await index.refresh();
    expect(index.rows()[0]).toMatchObject({ status: 'completed', steps: 2, tokens: 312, stopReason: 'final' });
  });

  it('a running run loaded from the cache counts its steps from the start of steps.jsonl', async () => {
    const root = await folder('live-cached');
    const cacheDir = join(dir, 'live-cache');
    const run = await copyRun(recorded, root, 'running', (m) => {
      m.status = 'running';
      m.summary = null;
    });
    await writeFile(join(run, 'steps.jsonl'), stepLine(1, 100, 0.001) + stepLine(2, 100, 0.001));
    const first = new BoardIndex([root], { cacheDir });
    await first.refresh();
    first.close();
    const warm = new BoardIndex([root], { cacheDir });
    await warm.refresh();
    expect(warm.rows()[0]).toMatchObject({ status: 'running', steps: 2, tokens: 220, cost: 0.002 });
  });

  it('a manifest the schema refuses is not listed, and the reason is kept', async () => {
    const root = await folder('bad');
    await copyRun(recorded, root, 'ok');
    await copyRun(recorded, root, 'broken', (m) => (m.status = 'exploded'));
    const index = new BoardIndex([root]);
    await index.refresh();
    expect(index.rows().map((r) => r.runId)).toEqual(['ok']);
    expect(index.skipped()).toEqual([expect.stringMatching(/broken.*status/)]);
  });

  it('does not follow a symbolic link out of its roots; a run whose files link outside is refused when opened', async () => {
    const root = await folder('jail/root');
    const outside = await folder('jail/outside');
    await copyRun(recorded, outside, 'secret-run');
    await writeFile(join(outside, 'secret.txt'), 'top secret');
    await symlink(join(outside, 'secret-run'), join(root, 'linked-run'));
    await symlink(outside, join(root, 'linked-folder'));
    const leaky = await copyRun(recorded, root, 'leaky');
    await symlink(join(outside, 'secret.txt'), join(leaky, 'steps.jsonl'));
    const inner = await copyRun(recorded, root, 'inner');
    await writeFile(join(root, 'shared.jsonl'), '');
    await symlink(join(root, 'shared.jsonl'), join(inner, 'steps.jsonl'));
    const index = new BoardIndex([root]);
    await index.refresh();
    expect(
      index
        .rows()
        .map((r) => r.runId)
        .sort(),
    ).toEqual(['inner', 'leaky']);
    expect(folderOutsideRoot(root, leaky)).toMatch(/steps\.jsonl links to .*secret\.txt, outside the board's folder/);
    expect(folderOutsideRoot(root, inner)).toBeUndefined();
    // a listed folder swapped for a link after it was listed
    await rm(inner, { recursive: true });
    await symlink(join(outside, 'secret-run'), inner);
    expect(folderOutsideRoot(root, inner)).toMatch(/resolves to .*secret-run, outside the board's folder/);
  });
});
