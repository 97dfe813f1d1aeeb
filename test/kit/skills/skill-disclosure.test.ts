import { toolContext } from '../../../src/kit/testing/tool-context.js';
import { cpSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Engine } from '../../../src/index.js';
import { toolSpec } from '../../../src/core/index.js';
import { ScriptedModel } from '../../../src/models/index.js';
import { nativeParser } from '../../../src/kit/parsers/index.js';
import { readTrace } from '../../../src/trace/index.js';
import { ReplayExecutor } from '../../../src/trace/replay-executor.js';
import { ReplayModel } from '../../../src/trace/replay-model.js';
import {
  SKILLS_DISCLOSED,
  ToolRetrievalService,
  discloseSkills,
  recordedSkillSelection,
} from '../../../src/kit/skills/index.js';
import { ModelPathAgent, tempDir } from '../../helpers/kernel-fixtures.js';
import { skillMd } from '../../helpers/zip-writer.js';

const FIXTURES = resolve(__dirname, '../../fixtures/skills');
const EXTRA: Record<string, string> = {
  'bread-baking': 'Bakes sourdough bread and pastries: recipes, proofing times, oven temperatures.',
  'bicycle-repair': 'Repairs bicycles: brakes, gears, punctures and chains.',
  'tax-returns': 'Prepares personal income tax returns and lists deductible expenses.',
  'slide-charts': 'Draws charts and diagrams for presentation slides.',
};
const TASK = 'Style my presentation slides with a color theme';

async function skillsRoot(): Promise<string> {
  const root = await tempDir();
  cpSync(FIXTURES, root, { recursive: true });
  rmSync(join(root, 'README.md'));
  for (const [name, description] of Object.entries(EXTRA)) addSkill(root, name, description);
  return root;
}
function addSkill(root: string, name: string, description: string): void {
  mkdirSync(join(root, name), { recursive: true });
  writeFileSync(join(root, name, 'SKILL.md'), skillMd(name, description, `# ${name}\nDo it well.\n`));
}

describe('discloseSkills: built-in tools plus the top skills for the task', () => {
  it('shows the pinned skills, then the top-N retrieved above the threshold, with scores', async () => {
    const { service } = await ToolRetrievalService.open(await skillsRoot());
    const d = await discloseSkills({
      retrieval: service,
      task: TASK,
      top: 2,
      threshold: 0.15,
      pinned: ['Internal-Comms'],
    });
    expect(d.selection).toMatchObject({
      query: TASK,
      embedder: 'hashing:v1-512',
      top: 2,
      threshold: 0.15,
      pinned: ['internal-comms'],
    });
    const [pinned, ...retrieved] = d.selection.skills;
    expect(pinned).toMatchObject({ name: 'internal-comms', pinned: true, score: null });
    // the two skills about slides, best first, each above the threshold
    expect(retrieved.map((s) => s.name).sort()).toEqual(['slide-charts', 'theme-factory']);
    expect(retrieved[0].score!).toBeGreaterThanOrEqual(retrieved[1].score!);
    for (const s of retrieved) expect(s).toMatchObject({ pinned: false, score: expect.any(Number) });
    expect(retrieved[1].score).toBeGreaterThanOrEqual(0.15);
    // the skill tool lists exactly the shown skills
    const skill = d.tools.find((t) => t.id === 'skill')!;
    expect(skill.description).toContain('- internal-comms: ');
    expect(skill.description).toContain('- theme-factory: ');
    expect(skill.description).not.toMatch(/bread-baking|bicycle-repair|tax-returns|brand-guidelines/);
    expect(d.tools.map((t) => t.id)).toEqual(['skill', 'find_skills']);
  });

  it('the threshold keeps unrelated skills out: only the pinned ones are shown', async () => {
    const { service } = await ToolRetrievalService.open(await skillsRoot());
    const d = await discloseSkills({
      retrieval: service,
      task: 'Translate this poem into Latin',
      threshold: 0.15,
      pinned: ['bicycle-repair'],
    });
    expect(d.selection.skills.map((s) => s.name)).toEqual(['bicycle-repair']);
    await expect(discloseSkills({ retrieval: service, task: TASK, pinned: ['bicycle'] })).rejects.toThrow(
      'pinned skill: Unknown skill "bicycle". Did you mean: bicycle-repair?',
    );
  });

  it('find_skills searches every skill, and the skill tool loads one that was not listed', async () => {
    const { service } = await ToolRetrievalService.open(await skillsRoot());
    const d = await discloseSkills({ retrieval: service, task: TASK, top: 1 });
    const find = d.tools.find((t) => t.id === 'find_skills')!;
    const found = await find.execute({ query: 'bake bread', top: 2 }, toolContext());
    const text = typeof found === 'string' ? found : found.output;
    expect(text).toMatch(
      /^Skills for "bake bread" \(score: higher is closer\):\n- bread-baking \(0\.\d{3}\): Bakes sourdough bread/,
    );
    const loaded = await d.tools.find((t) => t.id === 'skill')!.execute({ name: 'bread-baking' }, toolContext());
    expect(typeof loaded === 'string' ? loaded : loaded.output).toContain('<skill name="bread-baking">');
    const none = await find.execute({ query: 'zzzz qqqq' }, toolContext());
    expect(typeof none === 'string' ? none : none.output).toBe('No installed skill matches "zzzz qqqq".');
  });

  it('records the choice as a trace event; a replay with the recorded choice sees the same skills, even after new installs', async () => {
    const root = await skillsRoot();
    const traces = await tempDir();
    // Native tool calling: the tool specs (with the listed skills) are part of every model request.
    const script = [
      { toolCalls: [{ name: 'find_skills', args: { query: 'bake bread' } }] },
      { toolCalls: [{ name: 'skill', args: { name: 'theme-factory' } }] },
      { text: 'styled' },
    ];
    const runWith = async (
      d: Awaited<ReturnType<typeof discloseSkills>>,
      model: ScriptedModel | ReplayModel,
      executor?: ReplayExecutor,
    ) => {
      const agent = new ModelPathAgent({ model, parser: nativeParser(), tools: d.tools });
      return new Engine({ agent, policies: [d.policy], trace: { dir: traces }, executor }).run(TASK);
    };

    const first = await discloseSkills({
      retrieval: (await ToolRetrievalService.open(root)).service,
      task: TASK,
      top: 2,
    });
    const run = await runWith(first, new ScriptedModel(script));
    expect(run.finalResult).toBe('styled');
    const trace = await readTrace(run.traceDir!);
    const event = trace.events.find(
      (e) => e.type === 'policy' && (e.data as { event: string }).event === SKILLS_DISCLOSED,
    );
    expect(event?.data).toMatchObject({
      policy: 'skills',
      event: SKILLS_DISCLOSED,
      data: { query: TASK, skills: first.selection.skills },
    });
    expect(recordedSkillSelection(trace.events)).toEqual(first.selection);

    // Later a skill that fits the task better is installed, and a shown one changes its description.
    addSkill(root, 'slide-themes', 'Style presentation slides with a color theme: palettes, fonts, slide themes.');
    addSkill(root, 'slide-charts', 'Something else entirely now.');
    const { service } = await ToolRetrievalService.open(root);

    const replayed = await discloseSkills({
      retrieval: service,
      task: TASK,
      top: 2,
      recorded: recordedSkillSelection(trace.events),
    });
    expect(replayed.tools.map(toolSpec)).toEqual(first.tools.map(toolSpec));
    const model = new ReplayModel(trace.steps, { id: 'replay' });
    const replay = await runWith(replayed, model, new ReplayExecutor(trace.steps));
    expect(model.drifts).toEqual([]);
    expect(model.served).toBe(3);
    expect(replay.finalResult).toBe('styled');

    // Without the record, retrieval picks the new skill: the tools differ and a replay reports drift.
    const fresh = await discloseSkills({ retrieval: service, task: TASK, top: 2 });
    expect(fresh.selection.skills.map((s) => s.name)).toContain('slide-themes');
    const driftModel = new ReplayModel(trace.steps, { id: 'replay', allowDrift: true });
    await runWith(fresh, driftModel, new ReplayExecutor(trace.steps, { allowDrift: true }));
    expect(driftModel.drifts[0]?.parts).toContain('tools');
  });

  it('a recorded skill that was uninstalled since is still listed as recorded, but cannot be loaded', async () => {
    const root = await skillsRoot();
    const { service } = await ToolRetrievalService.open(root);
    const first = await discloseSkills({ retrieval: service, task: TASK, top: 1 });
    rmSync(join(root, 'theme-factory'), { recursive: true });
    const again = await discloseSkills({ retrieval: service, task: TASK, recorded: first.selection });
    expect(again.tools[0].description).toBe(first.tools[0].description);
    await expect(again.tools[0].execute({ name: 'theme-factory' }, toolContext())).rejects.toThrow(
      /Unknown skill "theme-factory"/,
    );
  });

  it('a malformed record in a trace is an error, not a silent new selection', () => {
    const events = [
      {
        seq: 1,
        ts: 0,
        step: 0,
        phase: 'init' as const,
        type: 'policy',
        data: { event: SKILLS_DISCLOSED, data: { policy: 'skills', query: 'x' } },
      },
    ];
    expect(() => recordedSkillSelection(events)).toThrow(
      /^the trace's skills:disclosed event is malformed: embedder: /,
    );
    expect(recordedSkillSelection([])).toBeUndefined();
  });
});
