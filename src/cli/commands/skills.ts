import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { InvalidArgumentError, Option, type Command } from 'commander';
import type { EmbeddingModel } from '../../core/index.js';
import { SkillManager, hashingEmbedder, loadSkills, openAIEmbedder, transformersEmbedder, type InstalledSkill } from '../../kit/skills/index.js';
import { CliError } from '../cli-error.js';
import { positiveInt } from '../effective-config.js';
import { ioOf, type CliIO } from '../io.js';
import { table } from '../text-format.js';

interface RootFlags {
  root?: string;
  embedder?: string;
  embedderUrl?: string;
  json?: boolean;
}

const EMBEDDER_HELP =
  'embedder of the search index: "hashing" (default, offline), "transformers:<model folder>" (local transformers.js model), ' +
  'or "openai:<model>" with --embedder-url (key from QITOS_EMBEDDER_API_KEY or OPENAI_API_KEY)';

/**
 * `qitos skills …`: install, update, uninstall, list and search the skills of a skills root (default
 * `~/.qitos/skills`, or `--root`), and `list <roots…>` for the skills an agent would find in any folders.
 */
export function registerSkillsCommand(program: Command): void {
  const skills = program.command('skills').description('install, update, uninstall, list and search skills (folders with a SKILL.md)');
  const withRoot = (cmd: Command) =>
    cmd
      .option('--root <dir>', 'the skills root (default ~/.qitos/skills)')
      .addOption(new Option('--embedder <spec>', EMBEDDER_HELP))
      .option('--embedder-url <url>', 'base URL of an OpenAI-compatible embeddings server (with --embedder openai:<model>)')
      .option('--json', 'print the result as JSON');

  withRoot(skills.command('install').description('install a skill from a ZIP (one SKILL.md at its root or in its single top folder)').argument('<zip>', 'the skill ZIP'))
    .option('--replace', 'replace an installed skill of the same name')
    .addHelpText('after', '\nExample:\n  $ qitos skills install ./pdf-tools.zip\n  $ qitos skills install ./pdf-tools.zip --root ./skills --replace\n')
    .action(async function (this: Command, zip: string, flags: RootFlags & { replace?: boolean }) {
      const io = ioOf(this);
      const manager = await open(io, flags);
      const r = await attempt(() => manager.install(resolve(io.cwd, zip), { replace: flags.replace }));
      report(io, flags, r, `${r.replaced ? 'replaced' : 'installed'} ${r.skill.name} in ${r.skill.dir} (${r.files} files, ${r.bytes} bytes)`);
    });

  withRoot(skills.command('update').description("change an installed skill's description, or replace it with a new ZIP").argument('<name>', 'the installed skill'))
    .option('--description <text>', 'the new description (only the SKILL.md frontmatter changes; the index is updated)')
    .option('--zip <file>', 'a ZIP of the same skill to replace it with')
    .addHelpText('after', '\nExample:\n  $ qitos skills update pdf-tools --description "Fill, merge and split PDF files."\n  $ qitos skills update pdf-tools --zip ./pdf-tools-2.zip\n')
    .action(async function (this: Command, name: string, flags: RootFlags & { description?: string; zip?: string }) {
      const io = ioOf(this);
      if ((flags.description === undefined) === (flags.zip === undefined)) throw new CliError('give exactly one of --description <text> or --zip <file>');
      const manager = await open(io, flags);
      const r = await attempt(() => manager.update(name, flags.zip !== undefined ? { zip: resolve(io.cwd, flags.zip) } : { description: flags.description }));
      report(io, flags, r, `updated ${r.skill.name}${r.replaced ? ` from the ZIP (${r.files} files)` : ': description changed'}`);
    });

  withRoot(skills.command('uninstall').description('remove an installed skill (its folder and its index entry)').argument('<name>', 'the installed skill'))
    .action(async function (this: Command, name: string, flags: RootFlags) {
      const io = ioOf(this);
      const manager = await open(io, flags);
      const skill = await attempt(() => manager.uninstall(name));
      report(io, flags, { skill }, `uninstalled ${skill.name}`);
    });

  withRoot(skills.command('search').description('find installed skills by meaning').argument('<query>', 'what the skill should do'))
    .option('--top <n>', 'how many skills (default 5)', positiveInt, 5)
    .option('--threshold <score>', 'leave out skills scoring below this', finiteNumber)
    .addHelpText('after', '\nExample:\n  $ qitos skills search "style slides with a theme" --top 3\n')
    .action(async function (this: Command, query: string, flags: RootFlags & { top: number; threshold?: number }) {
      const io = ioOf(this);
      const manager = await open(io, flags);
      const matches = await attempt(() => manager.search(query, { top: flags.top, threshold: flags.threshold }));
      for (const w of manager.retrieval.warnings) io.err(`warning: ${w}\n`);
      if (flags.json) return io.out(JSON.stringify({ query, embedder: manager.retrieval.embedder.id, matches }, null, 2) + '\n');
      io.out(matches.length ? table(['name', 'score', 'description'], matches.map((m) => [m.name, m.score.toFixed(3), short(m.description)])) : 'no skills found\n');
    });

  withRoot(skills.command('list').description('list the installed skills of the root; or, given folders, the skills found in them and the SKILL.md files skipped with the reason'))
    .argument('[roots...]', 'folders holding skill folders (or skill folders themselves); earlier roots win on a name clash')
    .addHelpText('after', '\nExample:\n  $ qitos skills list\n  $ qitos skills list --root ./skills --json\n  $ qitos skills list ~/.qitos/skills ./skills\n')
    .action(async function (this: Command, roots: string[], flags: RootFlags) {
      const io = ioOf(this);
      let list: Array<Pick<InstalledSkill, 'name' | 'description'> & Partial<InstalledSkill> & { path: string }>;
      let skipped: Array<{ path: string; reason: string }>;
      if (roots.length) {
        const catalog = await attempt(() => loadSkills(roots.map((r) => resolve(io.cwd, r))));
        list = catalog.skills.map((s) => ({ name: s.name, description: s.description, path: s.path }));
        skipped = [...catalog.skipped];
      } else {
        const r = await attempt(async () => (await open(io, flags)).list());
        list = r.skills.map((s) => ({ ...s, path: join(s.dir, 'SKILL.md') }));
        skipped = [...r.skipped];
      }
      if (flags.json) return io.out(JSON.stringify({ skills: list, skipped }, null, 2) + '\n');
      io.out(list.length ? table(['name', 'description', 'path'], list.map((s) => [s.name, short(s.description), s.path])) : 'no skills found\n');
      for (const s of skipped) io.err(`skipped ${s.path}: ${s.reason}\n`);
    });
}

/** Opens the manager of `--root` (default ~/.qitos/skills) with the chosen embedder. */
async function open(io: CliIO, flags: RootFlags): Promise<SkillManager> {
  const root = flags.root ? resolve(io.cwd, flags.root) : join(io.env.HOME || homedir(), '.qitos', 'skills');
  return attempt(() => SkillManager.open(root, { embedder: embedderFor(io, flags) }));
}

/** The embedder a `--embedder` spec names. */
export function embedderFor(io: CliIO, flags: Pick<RootFlags, 'embedder' | 'embedderUrl'>): EmbeddingModel {
  const spec = flags.embedder ?? 'hashing';
  if (spec === 'hashing') return hashingEmbedder();
  const [kind, ...rest] = spec.split(':');
  const arg = rest.join(':');
  if (kind === 'transformers' && arg) return transformersEmbedder({ modelPath: resolve(io.cwd, arg) });
  if (kind === 'openai' && arg) {
    if (!flags.embedderUrl) throw new CliError('--embedder openai:<model> needs --embedder-url <base URL>, e.g. http://localhost:11434/v1');
    const apiKey = io.env.QITOS_EMBEDDER_API_KEY ?? io.env.OPENAI_API_KEY ?? 'none';
    return attemptSync(() => openAIEmbedder({ model: arg, baseURL: flags.embedderUrl!, apiKey }));
  }
  throw new CliError(`unknown --embedder "${spec}": use hashing, transformers:<model folder> or openai:<model>`);
}

/** Runs a library call, turning its error into a one-line CLI error. */
async function attempt<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof CliError) throw err;
    throw new CliError((err as Error).message);
  }
}

function attemptSync<T>(fn: () => T): T {
  try {
    return fn();
  } catch (err) {
    throw new CliError((err as Error).message);
  }
}

function report(io: CliIO, flags: RootFlags, result: object, line: string): void {
  io.out(flags.json ? JSON.stringify(result, null, 2) + '\n' : line + '\n');
}

function short(d: string): string {
  return d.length > 80 ? `${d.slice(0, 79)}…` : d;
}

function finiteNumber(v: string): number {
  const n = Number(v);
  if (!v.trim() || !Number.isFinite(n)) throw new InvalidArgumentError(`expected a number, got "${v}"`);
  return n;
}
