import { InvalidArgumentError, Option, type Command } from 'commander';
import { ioOf } from '../io.js';
import { DEFAULT_MIN_SKILL_SCORE } from '../../kit/skills/default-min-skill-score.js';
import { positiveInt } from '../option-parsers.js';
import type { RootFlags } from './command-flags.js';

const EMBEDDER_HELP =
  'embedder of the search index: "hashing" (default, offline), "transformers:<model folder>" (local transformers.js model), ' +
  'or "openai:<model>" with --embedder-url (key from QITOS_EMBEDDER_API_KEY or OPENAI_API_KEY)';

/**
 * `qitos skills …`: install, update, uninstall, list and search the skills of a skills root (default
 * `~/.qitos/skills`, or `--root`), and `list <roots…>` for the skills an agent would find in any folders.
 */
export function registerSkillsCommand(program: Command): void {
  const skills = program
    .command('skills')
    .description('install, update, uninstall, list and search skills (folders with a SKILL.md)');
  const withRoot = (cmd: Command) =>
    cmd
      .option('--root <dir>', 'the skills root (default ~/.qitos/skills)')
      .addOption(new Option('--embedder <spec>', EMBEDDER_HELP))
      .option(
        '--embedder-url <url>',
        'base URL of an OpenAI-compatible embeddings server (with --embedder openai:<model>)',
      )
      .option('--json', 'print the result as JSON');

  withRoot(
    skills
      .command('install')
      .description('install a skill from a ZIP (one SKILL.md at its root or in its single top folder)')
      .argument('<zip>', 'the skill ZIP'),
  )
    .option('--replace', 'replace an installed skill of the same name')
    .addHelpText(
      'after',
      '\nExample:\n  $ qitos skills install ./pdf-tools.zip\n  $ qitos skills install ./pdf-tools.zip --root ./skills --replace\n',
    )
    .action(async function (this: Command, zip: string, flags: RootFlags & { replace?: boolean }) {
      const { installAction } = await import('./skills-action.js');
      await installAction(ioOf(this), zip, flags);
    });

  withRoot(
    skills
      .command('update')
      .description("change an installed skill's description, or replace it with a new ZIP")
      .argument('<name>', 'the installed skill'),
  )
    .option('--description <text>', 'the new description (only the SKILL.md frontmatter changes; the index is updated)')
    .option('--zip <file>', 'a ZIP of the same skill to replace it with')
    .addHelpText(
      'after',
      '\nExample:\n  $ qitos skills update pdf-tools --description "Fill, merge and split PDF ' +
        'files."\n  $ qitos skills update pdf-tools --zip ./pdf-tools-2.zip\n',
    )
    .action(async function (this: Command, name: string, flags: RootFlags & { description?: string; zip?: string }) {
      const { updateAction } = await import('./skills-action.js');
      await updateAction(ioOf(this), name, flags);
    });

  withRoot(
    skills
      .command('uninstall')
      .description('remove an installed skill (its folder and its index entry)')
      .argument('<name>', 'the installed skill'),
  ).action(async function (this: Command, name: string, flags: RootFlags) {
    const { uninstallAction } = await import('./skills-action.js');
    await uninstallAction(ioOf(this), name, flags);
  });

  withRoot(
    skills
      .command('search')
      .description('find installed skills by meaning')
      .argument('<query>', 'what the skill should do'),
  )
    .option('--top <n>', 'how many skills (default 5)', positiveInt, 5)
    .option(
      '--threshold <score>',
      'leave out skills scoring below this (default 0.1: unrelated skills score near 0 or below; -1 lists all)',
      finiteNumber,
      DEFAULT_MIN_SKILL_SCORE,
    )
    .addHelpText('after', '\nExample:\n  $ qitos skills search "style slides with a theme" --top 3\n')
    .action(async function (this: Command, query: string, flags: RootFlags & { top: number; threshold: number }) {
      const { searchAction } = await import('./skills-action.js');
      await searchAction(ioOf(this), query, flags);
    });

  withRoot(
    skills
      .command('list')
      .description(
        'list the installed skills of the root; or, given folders, the skills found in them and the SKILL.md files skipped with the reason',
      ),
  )
    .argument(
      '[roots...]',
      'folders holding skill folders (or skill folders themselves); earlier roots win on a name clash',
    )
    .addHelpText(
      'after',
      '\nExample:\n  $ qitos skills list\n  $ qitos skills list --root ./skills --json\n  $ qitos skills list ~/.qitos/skills ./skills\n',
    )
    .action(async function (this: Command, roots: string[], flags: RootFlags) {
      const { listAction } = await import('./skills-action.js');
      await listAction(ioOf(this), roots, flags);
    });
}

function finiteNumber(v: string): number {
  const n = Number(v);
  if (!v.trim() || !Number.isFinite(n)) throw new InvalidArgumentError(`expected a number, got "${v}"`);
  return n;
}
