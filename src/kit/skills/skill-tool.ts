import path from 'node:path';
import { z } from 'zod';
import { defineTool, type FileOps, type Tool, type ToolContext } from '../../core/index.js';
import { looksBinary, truncateOutput } from '../tools/index.js';
import { toolError } from '../tools/index.js';
import { skillFiles, unknownSkillMessage, type SkillCatalog } from './skill-catalog.js';

const parameters = z.object({
  name: z.string().describe("The skill to load, by its name from the list in this tool's description."),
  file: z
    .string()
    .optional()
    .describe('A file of the skill folder to read (a path from the list the skill returned), instead of its SKILL.md.'),
});

/**
 * The `skill` tool (Direct mode): the model loads a skill by name and gets its SKILL.md body, its folder and the
 * files in it; with `file` it reads one of those files. The skill's folder is read through the run's own env: the
 * env mounts it read-only (`mount` op group) and the file is read with the env's file ops, jailed to the
 * folder, so a MemoryEnv or a sandbox sees exactly what the model is told. The tool's description lists every skill
 * (name: description), which is how the model discovers them. Outputs are marked `keepOutput`, so context
 * compaction never prunes a loaded skill.
 */
export function skillTool(catalog: SkillCatalog, options: { maxListedFiles?: number } = {}): Tool<typeof parameters> {
  const list = catalog.skills.map((s) => `- ${s.name}: ${s.description}`).join('\n');
  return defineTool({
    id: 'skill',
    description:
      'Load a skill: instructions and resources for a specialised task. Call it when a task matches a skill below, ' +
      `then follow the instructions it returns.\nAvailable skills:\n${list || '(none installed)'}`,
    parameters,
    keepOutput: true,
    async execute({ name, file }, ctx) {
      const skill = catalog.get(name);
      if (!skill) throw toolError(unknownSkillMessage(catalog, name));
      if (file !== undefined) {
        const inside = insidePath(file);
        if (inside === undefined)
          throw toolError(
            `${file} is outside the folder of skill "${name}": give a path from the list the skill returned`,
          );
        const { at, files } = await mountSkill(ctx, skill.dir, name);
        if (!at || !files)
          throw toolError(
            `the run's env "${ctx.env.name}" cannot mount skill folders read-only (no "mount" and ` +
              `"file" op groups), so files of skill "${name}" cannot be read; run with a workspace or ` +
              `memory env`,
          );
        const bytes = await files.readBytes(path.posix.join(at, inside));
        if (looksBinary(bytes))
          throw toolError(`${file} of skill "${name}" is a binary file; only text files can be read`);
        const t = truncateOutput(new TextDecoder().decode(bytes), 'The whole file is in the trace.');
        return { output: t.output, title: `${name}/${file}`, ...(t.full ? { full: t.full } : {}) };
      }
      const { at } = await mountSkill(ctx, skill.dir, name);
      const dir = at ?? skill.dir;
      const { files, more } = await skillFiles(skill, options.maxListedFiles ?? 50);
      const listing = files.length
        ? `\n\nFiles in this skill (read one with skill(name="${name}", ` +
          `file="<path>")):\n${files.map((f) => `- ${f}`).join('\n')}${more ? `\n- ... and ${more} more` : ''}`
        : '';
      return {
        output: `<skill name="${skill.name}">\n${skill.body.trimEnd()}\n</skill>\nBase folder: ${dir}${listing}`,
        title: skill.name,
        metadata: { skill: skill.name, dir },
      };
    },
  });
}

/**
 * Mounts a skill's folder in the run's env, read-only; `at` is where the env shows it. Both are undefined when
 * the env has no `mount` or no `file` op group (then nothing of the folder can be read through it).
 */
async function mountSkill(ctx: ToolContext, dir: string, name: string): Promise<{ at?: string; files?: FileOps }> {
  const mounts = ctx.env.ops('mount');
  if (!mounts || !ctx.env.ops('file')) return {};
  let at: string;
  try {
    at = await mounts.mountReadOnly(dir);
  } catch (err) {
    throw toolError(`cannot mount the folder of skill "${name}" in env "${ctx.env.name}": ${(err as Error).message}`);
  }
  return { at, files: ctx.env.ops('file') };
}

/** `file` as a path inside the skill folder (forward slashes, no `..` out of it), or undefined when it leaves it. */
function insidePath(file: string): string | undefined {
  const p = file.replace(/\\/g, '/');
  if (path.posix.isAbsolute(p) || /^[A-Za-z]:/.test(p)) return undefined;
  const n = path.posix.normalize(p);
  return n === '..' || n.startsWith('../') ? undefined : n;
}
