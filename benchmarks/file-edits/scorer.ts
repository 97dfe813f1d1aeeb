/**
 * Scores a file-edits task by the workspace's end state: every file in `expected.files` must exist with exactly
 * that content, and no other file may have been created or removed. The score is the share of files that are
 * right; only a fully right workspace passes.
 */
import type { Score, ScoreInput } from '../../src/bench/index.js';
import type { MemoryEnv } from '../../src/envs/index.js';

export function checkWorkspace({ env, expected }: ScoreInput): Score {
  const want = (expected as { files?: Record<string, string> } | undefined)?.files;
  if (!want) throw new Error('file-edits tasks need expected.files');
  const snapshot = (env as MemoryEnv | undefined)?.snapshot?.();
  if (!snapshot) throw new Error('file-edits needs the run to use a MemoryEnv (the suite agent module provides one)');
  const paths = [...new Set([...Object.keys(want), ...Object.keys(snapshot)])].sort();
  const wrong: string[] = [];
  for (const p of paths) {
    if (!(p in want)) wrong.push(`${p}: unexpected file`);
    else if (!(p in snapshot)) wrong.push(`${p}: missing`);
    else if (snapshot[p] !== want[p]) wrong.push(`${p}: content differs`);
  }
  const score = (paths.length - wrong.length) / paths.length;
  return {
    score,
    pass: wrong.length === 0,
    explanation: wrong.length ? wrong.join('; ') : `all ${paths.length} file(s) as expected`,
  };
}
