import { parseDocument } from 'yaml';
import { z } from 'zod';

/**
 * The frontmatter a SKILL.md must have: `name` (lowercase letters, digits and hyphens, as in the Agent Skills
 * format) and `description` (what the skill does and when to use it: the model picks skills by it).
 * Other fields (license, allowed-tools, metadata, ...) are kept as they are.
 */
export const SkillFrontmatter = z.looseObject({
  name: z.string().regex(/^[a-z0-9][a-z0-9-]{0,63}$/, 'must be 1-64 lowercase letters, digits or hyphens'),
  description: z.string().trim().min(1, 'must not be empty').max(1024, 'must be at most 1024 characters'),
});
export type SkillFrontmatter = z.infer<typeof SkillFrontmatter>;

/** A parsed SKILL.md. */
export interface SkillFile {
  name: string;
  description: string;
  /** The markdown after the frontmatter. */
  body: string;
  frontmatter: SkillFrontmatter;
}

/**
 * Parses the text of a SKILL.md: `---` YAML frontmatter `---`, then the markdown body. Returns the skill, or a
 * one-line reason why the file is not a usable skill (no frontmatter, bad YAML, a missing or invalid field).
 */
export function parseSkillFile(text: string): SkillFile | { error: string } {
  const m = /^\uFEFF?---[ \t]*\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/.exec(text);
  if (!m) return { error: 'no YAML frontmatter (the file must start with a --- block holding name and description)' };
  const doc = parseDocument(m[1]);
  if (doc.errors.length) return { error: `frontmatter is not valid YAML: ${doc.errors[0].message.split('\n')[0]}` };
  const parsed = SkillFrontmatter.safeParse(doc.toJS());
  if (!parsed.success) {
    const i = parsed.error.issues[0];
    return { error: `frontmatter ${i.path.length ? `field "${i.path.join('.')}"` : ''} ${i.message}`.replace(/\s+/g, ' ').trim() };
  }
  return { name: parsed.data.name, description: parsed.data.description.trim(), body: text.slice(m[0].length).replace(/^\s*\n/, ''), frontmatter: parsed.data };
}
