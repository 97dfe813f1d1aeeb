import { resolve } from 'node:path';
import { loadSkills } from '../../kit/skills/index.js';
import { CliError } from '../cli-error.js';
import { table } from '../text-format.js';
import type { CliIO } from '../io.js';

/** What `qitos skills` does (loaded when the command runs, so `qitos --help` stays fast). */
export async function skillsAction(io: CliIO, roots: string[], opts: { json?: boolean }): Promise<void> {
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
}
