import { z } from 'zod';
import { defineTool, type Tool } from '../../core/index.js';
import { HostEnv } from '../../envs/index.js';
import { looksBinary, truncateOutput } from '../tools/index.js';
import { skillFiles, type SkillCatalog } from './skill-catalog.js';

const parameters = z.object({
  name: z.string().describe('The skill to load, by its name from the list in this tool\'s description.'),
  file: z.string().optional().describe('A file of the skill folder to read (a path from the list the skill returned), instead of its SKILL.md.'),
});

/**
 * The `skill` tool (Direct mode): the model loads a skill by name and gets its SKILL.md body, its folder and the
 * files in it; with `file` it reads one of those files. Reads are jailed to the skill's folder. The tool's
 * description lists every skill (name: description), which is how the model discovers them. Outputs are marked
 * `keepOutput`, so context compaction never prunes a loaded skill.
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
    async execute({ name, file }) {
      const skill = catalog.get(name);
      if (!skill) {
        const names = catalog.skills.map((s) => s.name);
        throw new Error(`Unknown skill "${name}". Available skills: ${names.length ? names.join(', ') : '(none)'}.`);
      }
      if (file !== undefined) {
        const files = new HostEnv({ root: skill.dir, process: false, name: `skill:${skill.name}` }).files;
        const bytes = await files.readBytes(file);
        if (looksBinary(bytes)) throw new Error(`${file} of skill "${name}" is a binary file; only text files can be read`);
        const t = truncateOutput(new TextDecoder().decode(bytes), 'The whole file is in the trace.');
        return { output: t.output, title: `${name}/${file}`, ...(t.full ? { full: t.full } : {}) };
      }
      const { files, more } = await skillFiles(skill, options.maxListedFiles ?? 50);
      const listing = files.length ? `\n\nFiles in this skill (read one with skill(name="${name}", file="<path>")):\n${files.map((f) => `- ${f}`).join('\n')}${more ? `\n- ... and ${more} more` : ''}` : '';
      return {
        output: `<skill name="${skill.name}">\n${skill.body.trimEnd()}\n</skill>\nBase folder: ${skill.dir}${listing}`,
        title: skill.name,
        metadata: { skill: skill.name, dir: skill.dir },
      };
    },
  });
}
