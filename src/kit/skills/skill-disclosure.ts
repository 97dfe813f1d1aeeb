import { z } from 'zod';
import type { AnyTool, EventRecord, Policy } from '../../core/index.js';
import { findSkillsTool } from './find-skills-tool.js';
import { loadSkills, unknownSkillMessage, type Skill, type SkillCatalog } from './skill-catalog.js';
import { skillScriptTool, type SkillScriptToolOptions } from './skill-script-tool.js';
import { skillTool } from './skill-tool.js';
import { DEFAULT_MIN_SKILL_SCORE } from './default-min-skill-score.js';
import type { ToolRetrievalService } from './tool-retrieval-service.js';

/** The trace event (a policy event of the `skills` policy) that records which skills a run was shown. */
export const SKILLS_DISCLOSED = 'skills:disclosed';

/** Which skills a run was shown, and why: recorded in the trace so a replay shows the same ones. */
export const SkillSelection = z.object({
  query: z.string(),
  embedder: z.string(),
  top: z.number().int().positive(),
  threshold: z.number(),
  pinned: z.array(z.string()),
  /** In the order the `skill` tool lists them: pinned first, then by score. */
  skills: z.array(
    z.object({ name: z.string(), description: z.string(), score: z.number().nullable(), pinned: z.boolean() }),
  ),
});
export type SkillSelection = z.infer<typeof SkillSelection>;

/** Options of {@link discloseSkills}. */
export interface SkillDisclosureOptions {
  retrieval: ToolRetrievalService;
  /** What the run is about (usually the task's objective): the retrieval query. */
  task: string;
  /** Skills shown besides the pinned ones (default 5). */
  top?: number;
  /** Lowest score a retrieved skill needs to be shown (default 0.1; with the hashing embedder unrelated text scores below it). */
  threshold?: number;
  /** Skills always shown, whatever the task (names; case-insensitive). */
  pinned?: string[];
  /** A selection recorded in a trace (see {@link recordedSkillSelection}): shown as it is, nothing is searched. */
  recorded?: SkillSelection;
  /** Add the `run_skill_script` tool with these options (default: no script execution). */
  scripts?: SkillScriptToolOptions | boolean;
}

/** What a run gets from progressive disclosure. */
export interface SkillDisclosure {
  selection: SkillSelection;
  /** Lists the shown skills; `get` finds any installed skill (the model may load one `find_skills` found). */
  catalog: SkillCatalog;
  /** `skill` (listing the shown skills), `find_skills`, and `run_skill_script` when asked for. */
  tools: AnyTool[];
  /** Records the selection as a trace event when the run starts; give it to the Engine with the tools. */
  policy: Policy;
}

/**
 * Progressive disclosure: instead of listing every installed skill in the `skill` tool (thousands would flood the
 * context), a run is shown its pinned skills plus the `top` skills retrieved for its task that score at least
 * `threshold`, with their scores; the `find_skills` tool lets the model search the rest. The choice is recorded as
 * the `skills:disclosed` policy event in the trace (through `policy`); a replay passes that record as `recorded`
 * and gets the same skills and the same tool descriptions, even when the installed skills changed since.
 */
export async function discloseSkills(options: SkillDisclosureOptions): Promise<SkillDisclosure> {
  const { retrieval } = options;
  const installed = await loadSkills([retrieval.root]);
  const selection = options.recorded ?? (await select(options, installed));
  // The recorded description is what the run saw: a replay lists it even if SKILL.md changed since.
  const shown = selection.skills.map((s): Skill => ({
    ...(installed.get(s.name) ?? missingSkill(s.name)),
    description: s.description,
  }));
  const catalog: SkillCatalog = { skills: shown, skipped: installed.skipped, get: (name) => installed.get(name) };
  const tools: AnyTool[] = [skillTool(catalog), findSkillsTool(retrieval, { threshold: selection.threshold })];
  if (options.scripts) tools.push(skillScriptTool(installed, options.scripts === true ? {} : options.scripts));
  const policy: Policy = {
    name: 'skills',
    start: (ctx) => ctx.emit(SKILLS_DISCLOSED, { policy: 'skills', ...selection }),
  };
  return { selection, catalog, tools, policy };
}

/** The skill selection recorded in a trace's events, or undefined when the run had none. */
export function recordedSkillSelection(events: readonly EventRecord[]): SkillSelection | undefined {
  for (const e of events) {
    const d = e.data as { event?: unknown; data?: Record<string, unknown> } | null;
    if (e.type !== 'policy' || d?.event !== SKILLS_DISCLOSED || !d.data) continue;
    const { policy: _policy, ...rest } = d.data;
    const parsed = SkillSelection.safeParse(rest);
    if (!parsed.success)
      throw new Error(
        `the trace's ${SKILLS_DISCLOSED} event is malformed: ${parsed.error.issues[0].path.join('.')}: ${parsed.error.issues[0].message}`,
      );
    return parsed.data;
  }
  return undefined;
}

async function select(options: SkillDisclosureOptions, installed: SkillCatalog): Promise<SkillSelection> {
  const top = options.top ?? 5;
  const threshold = options.threshold ?? DEFAULT_MIN_SKILL_SCORE;
  const pinned = (options.pinned ?? []).map((name) => {
    const skill = installed.get(name);
    if (!skill) throw new Error(`pinned skill: ${unknownSkillMessage(installed, name)}`);
    return skill;
  });
  const pinnedNames = new Set(pinned.map((s) => s.name));
  const found = options.task.trim()
    ? await options.retrieval.search(options.task, { top: top + pinned.length, threshold })
    : [];
  const retrieved = found.filter((m) => !pinnedNames.has(m.name) && installed.get(m.name)).slice(0, top);
  return {
    query: options.task,
    embedder: options.retrieval.embedder.id,
    top,
    threshold,
    pinned: pinned.map((s) => s.name),
    skills: [
      ...pinned.map((s) => ({ name: s.name, description: s.description, score: null, pinned: true })),
      ...retrieved.map((m) => ({
        name: m.name,
        description: installed.get(m.name)!.description,
        score: m.score,
        pinned: false,
      })),
    ],
  };
}

/** A placeholder for a recorded skill that is no longer installed: listed as recorded, not loadable. */
function missingSkill(name: string): Skill {
  return { name, description: '', body: '', frontmatter: { name, description: '' }, dir: '', path: '', hash: '' };
}
