import type { Command } from 'commander';
import { ioOf } from '../io.js';

/** `qitos skills list <roots…>`: the skills an agent would see, and the SKILL.md files that were skipped and why. */
export function registerSkillsCommand(program: Command): void {
  const skills = program.command('skills').description('work with skills (folders with a SKILL.md)');
  skills
    .command('list')
    .description('list the skills under one or more folders, and the SKILL.md files skipped with the reason')
    .argument('<roots...>', 'folders holding skill folders (or skill folders themselves); earlier roots win on a name clash')
    .option('--json', 'print the list as JSON')
    .addHelpText('after', '\nExample:\n  $ qitos skills list ~/.qitos/skills ./skills\n  $ qitos skills list ./skills --json | jq ".skills[].name"\n')
    .action(async function (this: Command, roots: string[], opts: { json?: boolean }) {
      const { skillsAction } = await import('./skills-action.js');
      await skillsAction(ioOf(this), roots, opts);
    });
}
