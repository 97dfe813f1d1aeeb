import { resolve } from 'node:path';
import type { Command } from 'commander';
import { loadSkills } from '../../kit/skills/index.js';
import { CliError } from '../cli-error.js';
import { ioOf } from '../io.js';
import { table } from '../text-format.js';

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
      const io = ioOf(this);
      const catalog = await loadSkills(roots.map((r) => resolve(io.cwd, r))).catch((err: Error) => {
        throw new CliError(err.message);
      });
      const list = catalog.skills.map((s) => ({ name: s.name, description: s.description, path: s.path }));
      if (opts.json) {
        io.out(JSON.stringify({ skills: list, skipped: catalog.skipped }, null, 2) + '\n');
        return;
      }
      if (list.length) {
        const short = (d: string) => (d.length > 80 ? `${d.slice(0, 79)}…` : d);
        io.out(table(['name', 'description', 'path'], list.map((s) => [s.name, short(s.description), s.path])));
      } else io.out('no skills found\n');
      for (const s of catalog.skipped) io.err(`skipped ${s.path}: ${s.reason}\n`);
    });
}
