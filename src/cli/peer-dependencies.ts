import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

/** The zod qitos-ts declares as its peer dependency (package.json `peerDependencies`). */
export const ZOD_PEER_RANGE = '^4.0.0';

/**
 * Why qitos-ts cannot run with the zod it would import, in one line, or undefined when that zod is 4.x. zod is
 * resolved from this file, the way qitos-ts's own modules resolve it. Called only once something has failed, so
 * a healthy start pays nothing for it.
 */
export function zodProblem(from: string = import.meta.url): string | undefined {
  let pkgFile: string;
  try {
    pkgFile = createRequire(from).resolve('zod/package.json');
  } catch {
    return `missing peer dependency zod: install it next to qitos-ts (npm install zod@${ZOD_PEER_RANGE})`;
  }
  const version = String((JSON.parse(readFileSync(pkgFile, 'utf8')) as { version?: unknown }).version ?? 'unknown');
  if (/^4\./.test(version)) return undefined;
  return (
    `qitos-ts needs zod ${ZOD_PEER_RANGE} (a peer dependency), but zod ${version} is ` +
    `installed (${pkgFile}): npm install zod@${ZOD_PEER_RANGE}`
  );
}
