/** Output cap of a plumbing command (a diff, an archive) unless the caller gives one: 64 MiB. */
export const PLUMBING_OUTPUT_CAP = 64 * 1024 * 1024;

const FALLBACK_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

/**
 * A cleared environment for the plumbing envs drive (git for RepoEnv, the docker CLI for DockerEnv): the host's
 * PATH (to find the program), HOME and LANG as given, and `extra`; nothing else of the host's reaches the program.
 */
export function plumbingEnv(home: string, extra: Record<string, string> = {}): Record<string, string> {
  return { PATH: process.env.PATH || FALLBACK_PATH, HOME: home, LANG: 'C', ...extra };
}
