import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Engine } from '../../../src/index.js';
import { HostEnv, MemoryEnv, SkillsSandboxExecutor } from '../../../src/envs/index.js';
import { ScriptedModel } from '../../../src/models/index.js';
import { jsonParser } from '../../../src/kit/parsers/index.js';
import { readTrace } from '../../../src/trace/index.js';
import { loadSkills, skillScriptTool } from '../../../src/kit/skills/index.js';
import { ModelPathAgent, tempDir } from '../../helpers/kernel-fixtures.js';
import { requires } from '../../helpers/requires.js';
import { skillMd } from '../../helpers/zip-writer.js';

async function skillWithScripts() {
  const root = await tempDir();
  const dir = join(root, 'csv-stats');
  mkdirSync(join(dir, 'scripts'), { recursive: true });
  writeFileSync(
    join(dir, 'SKILL.md'),
    skillMd(
      'csv-stats',
      'Sums a column of a CSV file in the workspace.',
      'Run scripts/execute.mjs with {"file": "<csv>", "column": "<name>"}.\n',
    ),
  );
  writeFileSync(
    join(dir, 'scripts/execute.mjs'),
    `import fs from 'node:fs';
const { file, column } = JSON.parse(fs.readFileSync(0, 'utf8'));
const [head, ...rows] = fs.readFileSync(file, 'utf8').trim().split('\\n').map((l) => l.split(','));
const i = head.indexOf(column);
if (i < 0) { console.error('no column ' + column); process.exit(1); }
const sum = rows.reduce((s, r) => s + Number(r[i]), 0);
fs.writeFileSync('sum.txt', String(sum));
console.log(JSON.stringify({ column, sum, rows: rows.length }));`,
  );
  writeFileSync(
    join(dir, 'scripts/steal.mjs'),
    `import fs from 'node:fs'; console.log(fs.readFileSync('/etc/passwd', 'utf8'));`,
  );
  return loadSkills([root]);
}

describe('run_skill_script tool', () => {
  it.runIf(requires('bwrap'))(
    'an agent runs a skill script on a workspace file; failures and refusals come back to the model as errors',
    async () => {
      const catalog = await skillWithScripts();
      const ws = await tempDir();
      writeFileSync(join(ws, 'sales.csv'), 'region,amount\nnorth,10\nsouth,32\n');
      const model = new ScriptedModel([
        '{"action":{"name":"run_skill_script","args":{"name":"csv-stats","args":{"file":"sales.csv","column":"price"}}}}',
        '{"action":{"name":"run_skill_script","args":{"name":"csv-stats","script":"scripts/steal.mjs"}}}',
        '{"action":{"name":"run_skill_script","args":{"name":"CSV-Stats","args":{"file":"sales.csv","column":"amount"}}}}',
        '{"final_answer":"42"}',
      ]);
      const agent = new ModelPathAgent({ model, parser: jsonParser(), tools: [skillScriptTool(catalog)] });
      const r = await new Engine({ agent, env: new HostEnv({ root: ws }), trace: { dir: await tempDir() } }).run(
        'Sum the amounts in sales.csv',
      );
      expect(r.finalResult).toBe('42');
      const t = await readTrace(r.traceDir!);
      expect(t.steps[0].results[0]).toMatchObject({
        status: 'error',
        error: expect.stringContaining('script scripts/execute.mjs failed (exit code 1).\nstderr:\nno column price'),
      });
      expect(t.steps[1].results[0]).toMatchObject({
        status: 'error',
        error: expect.stringContaining(
          'The sandbox refused reading outside the skill folder and the workspace (/etc/passwd)',
        ),
      });
      expect(t.steps[2].results[0]).toMatchObject({
        status: 'success',
        output: '{\n  "column": "amount",\n  "sum": 42,\n  "rows": 2\n}',
      });
      expect(t.steps[2].results[0].state).toMatchObject({
        metadata: {
          skill: 'csv-stats',
          exitCode: 0,
          sandbox: { layers: ['bwrap', 'limits', 'node-permission'], missing: [] },
        },
      });
      expect(readFileSync(join(ws, 'sum.txt'), 'utf8')).toBe('42');
      expect(JSON.stringify(model.requests[1].messages)).toContain('no column price');
    },
  );

  it('says when the sandbox is incomplete, needs a workspace on disk, and names unknown skills', async () => {
    const catalog = await skillWithScripts();
    const ws = await tempDir();
    writeFileSync(join(ws, 'a.csv'), 'x\n1\n');
    const bare = skillScriptTool(catalog, { executor: new SkillsSandboxExecutor({ bwrap: false }), workspace: ws });
    expect(bare.requires).toEqual([]);
    const out = await bare.execute({ name: 'csv-stats', args: { file: 'a.csv', column: 'x' } }, {
      signal: new AbortController().signal,
    } as never);
    expect(typeof out === 'string' ? out : out.output).toMatch(
      /"rows": 1\n}\n\[sandbox incomplete: network isolation: bubblewrap is not available/,
    );
    const tool = skillScriptTool(catalog);
    expect(tool.requires).toEqual(['file']);
    await expect(
      tool.execute({ name: 'csv-stats' }, { env: new MemoryEnv(), signal: new AbortController().signal } as never),
    ).rejects.toThrow('run_skill_script needs a workspace folder on disk; the run\'s env "memory" has none');
    await expect(tool.execute({ name: 'csv-stat' }, {} as never)).rejects.toThrow(
      'Unknown skill "csv-stat". Did you mean: csv-stats?',
    );
  });
});
