import { isMap, parseDocument } from 'yaml';
import { YamlError, parseYaml } from '../yaml/index.js';
import { z } from 'zod';

/** Longest `description` a skill may have: every listed description costs context in every run. */
export const MAX_DESCRIPTION_CHARS = 1024;

/**
 * The frontmatter a SKILL.md must have: `name` (kebab-case, at most 64 characters, as in the Agent Skills format;
 * it is also the skill's folder name when installed) and `description` (what the skill does and when to use it:
 * the model and retrieval pick skills by it). `license`, `allowed-tools` and `metadata` are checked when present;
 * other fields are kept as they are.
 */
export const SkillFrontmatter = z.looseObject({
  name: z
    .string()
    .max(64, 'must be at most 64 characters')
    .regex(
      /^[a-z0-9]+(?:-[a-z0-9]+)*$/,
      'must be kebab-case: lowercase letters and digits, words joined by single hyphens',
    ),
  description: z
    .string()
    .trim()
    .min(1, 'must not be empty')
    .refine((d) => d.length <= MAX_DESCRIPTION_CHARS, {
      error: (i) => `is ${(i.input as string).trim().length} characters; at most ${MAX_DESCRIPTION_CHARS} are allowed`,
    }),
  license: z.string().optional(),
  'allowed-tools': z.union([z.string(), z.array(z.string())]).optional(),
  metadata: z.record(z.string(), z.unknown()).optional(),
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

const FRONTMATTER = /^\uFEFF?---[ \t]*\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/;

/**
 * Parses the text of a SKILL.md: `---` YAML frontmatter `---`, then the markdown body. Returns the skill, or a
 * one-line reason why the file is not a usable skill (no frontmatter, bad YAML, a missing or invalid field).
 */
export function parseSkillFile(text: string): SkillFile | { error: string } {
  const m = FRONTMATTER.exec(text);
  if (!m) return { error: 'no YAML frontmatter (the file must start with a --- block holding name and description)' };
  let value: unknown;
  try {
    value = parseYaml(m[1]).value;
  } catch (err) {
    if (!YamlError.isInstance(err)) throw err;
    // the frontmatter starts on the line after the opening ---
    return { error: `frontmatter is not valid YAML: line ${err.line + 1}, column ${err.column}: ${err.message}` };
  }
  const parsed = SkillFrontmatter.safeParse(value);
  if (!parsed.success) {
    const i = parsed.error.issues[0];
    return {
      error: `frontmatter ${i.path.length ? `field "${i.path.join('.')}"` : ''} ${i.message}`
        .replace(/\s+/g, ' ')
        .trim(),
    };
  }
  return {
    name: parsed.data.name,
    description: parsed.data.description.trim(),
    body: text.slice(m[0].length).replace(/^\s*\n/, ''),
    frontmatter: parsed.data,
  };
}

/**
 * The text of a SKILL.md with its frontmatter `description` replaced and everything else (other fields, their
 * order and comments, the body) kept byte for byte where YAML allows. Throws when the file is not a valid skill
 * or the new description is not (empty, or longer than 1024 characters).
 */
export function withDescription(text: string, description: string): string {
  const m = FRONTMATTER.exec(text);
  const before = parseSkillFile(text);
  if (!m || 'error' in before)
    throw new Error(`not a valid SKILL.md: ${'error' in before ? before.error : 'no frontmatter'}`);
  const checked = SkillFrontmatter.shape.description.safeParse(description);
  if (!checked.success) throw new Error(`description ${checked.error.issues[0].message}`);
  const doc = parseDocument(m[1]);
  if (!isMap(doc.contents)) throw new Error('not a valid SKILL.md: the frontmatter is not a mapping');
  doc.set('description', checked.data);
  const eol = m[0].includes('\r\n') ? '\r\n' : '\n';
  const yaml = doc.toString({ lineWidth: 0 }).replace(/\n$/, '').replace(/\n/g, eol);
  const open = m[0].slice(0, m[0].indexOf('---') + 3);
  const updated = `${open}${eol}${yaml}${eol}---${eol}${text.slice(m[0].length)}`;
  const after = parseSkillFile(updated);
  // The round trip must give back the same skill with the new description, or nothing is written.
  if (
    'error' in after ||
    after.name !== before.name ||
    after.description !== checked.data ||
    after.body !== before.body
  )
    throw new Error('the description could not be written without changing other parts of SKILL.md');
  return updated;
}
