import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import type { EmbeddingModel } from '../../core/index.js';
import {
  SkillManager,
  hashingEmbedder,
  loadSkills,
  openAIEmbedder,
  transformersEmbedder,
  type InstalledSkill,
} from '../../kit/skills/index.js';
import { AppError } from '../../app/app-error.js';
import type { CliIO } from '../io.js';
import { table } from '../../app/text-format.js';
import type { RootFlags } from './command-flags.js';
import { terminalText } from '../../app/terminal-text.js';

/** `qitos skills install`. */
export async function installAction(io: CliIO, zip: string, flags: RootFlags & { replace?: boolean }): Promise<void> {
  const manager = await open(io, flags);
  const r = await attempt(() => manager.install(resolve(io.cwd, zip), { replace: flags.replace }));
  report(
    io,
    flags,
    r,
    `${r.replaced ? 'replaced' : 'installed'} ${r.skill.name} in ${r.skill.dir} (${r.files} files, ${r.bytes} bytes)`,
  );
}

/** `qitos skills update`. */
export async function updateAction(
  io: CliIO,
  name: string,
  flags: RootFlags & { description?: string; zip?: string },
): Promise<void> {
  if ((flags.description === undefined) === (flags.zip === undefined))
    throw new AppError('give exactly one of --description <text> or --zip <file>');
  const manager = await open(io, flags);
  const r = await attempt(() =>
    manager.update(
      name,
      flags.zip !== undefined ? { zip: resolve(io.cwd, flags.zip) } : { description: flags.description },
    ),
  );
  report(
    io,
    flags,
    r,
    `updated ${r.skill.name}${r.replaced ? ` from the ZIP (${r.files} files)` : ': description changed'}`,
  );
}

/** `qitos skills uninstall`. */
export async function uninstallAction(io: CliIO, name: string, flags: RootFlags): Promise<void> {
  const manager = await open(io, flags);
  const skill = await attempt(() => manager.uninstall(name));
  report(io, flags, { skill }, `uninstalled ${skill.name}`);
}

/** `qitos skills search`. */
export async function searchAction(
  io: CliIO,
  query: string,
  flags: RootFlags & { top: number; threshold?: number },
): Promise<void> {
  const manager = await open(io, flags);
  const matches = await attempt(() => manager.search(query, { top: flags.top, threshold: flags.threshold }));
  for (const w of manager.retrieval.warnings) io.err(`warning: ${terminalText(w)}\n`);
  if (flags.json)
    return io.out(JSON.stringify({ query, embedder: manager.retrieval.embedder.id, matches }, null, 2) + '\n');
  io.out(
    matches.length
      ? table(
          ['name', 'score', 'description'],
          matches.map((m) => [m.name, m.score.toFixed(3), short(m.description)]),
        )
      : 'no skills found\n',
  );
}

/** `qitos skills list`. */
export async function listAction(io: CliIO, roots: string[], flags: RootFlags): Promise<void> {
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
  io.out(
    list.length
      ? table(
          ['name', 'description', 'path'],
          list.map((s) => [s.name, short(s.description), s.path]),
        )
      : 'no skills found\n',
  );
  for (const s of skipped) io.err(`${terminalText(`skipped ${s.path}: ${s.reason}`)}\n`);
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
    if (!flags.embedderUrl)
      throw new AppError('--embedder openai:<model> needs --embedder-url <base URL>, e.g. http://localhost:11434/v1');
    const apiKey = io.env.QITOS_EMBEDDER_API_KEY ?? io.env.OPENAI_API_KEY ?? 'none';
    return attemptSync(() => openAIEmbedder({ model: arg, baseURL: flags.embedderUrl!, apiKey }));
  }
  throw new AppError(`unknown --embedder "${spec}": use hashing, transformers:<model folder> or openai:<model>`);
}

/** Runs a library call, turning its error into a one-line CLI error. */
async function attempt<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (AppError.isInstance(err)) throw err;
    throw new AppError((err as Error).message);
  }
}

function attemptSync<T>(fn: () => T): T {
  try {
    return fn();
  } catch (err) {
    throw new AppError((err as Error).message);
  }
}

function report(io: CliIO, flags: RootFlags, result: object, line: string): void {
  io.out(flags.json ? JSON.stringify(result, null, 2) + '\n' : terminalText(line) + '\n');
}

function short(d: string): string {
  return d.length > 80 ? `${d.slice(0, 79)}…` : d;
}
