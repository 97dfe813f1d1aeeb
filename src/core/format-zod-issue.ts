import type { z } from 'zod';

/**
 * The field a zod issue is about, as a dotted path. For an unknown key it is the key's own path
 * (`engine.maxStep`), so a reader sees which field to remove.
 */
export function zodIssueField(issue: z.core.$ZodIssue): string {
  const path = issue.path.map(String);
  if (issue.code === 'unrecognized_keys') path.push(issue.keys[0]);
  return path.join('.');
}

/** The message of a zod issue; an unknown key reads `unknown field "<key>"`. */
export function zodIssueMessage(issue: z.core.$ZodIssue): string {
  return issue.code === 'unrecognized_keys' ? `unknown field "${issue.keys[0]}"` : issue.message;
}

/**
 * One zod issue as one line, `field: message`, with `root` standing for the field of an issue about the
 * whole value. Every error that reports invalid input (tool arguments, tasks, configs, traces) uses it.
 */
export function formatZodIssue(issue: z.core.$ZodIssue, root = '(root)'): string {
  return `${zodIssueField(issue) || root}: ${zodIssueMessage(issue)}`;
}

/** Every issue of a zod error, one `field: message` per line, each line starting with `bullet`. */
export function formatZodIssues(error: z.ZodError, root = '(root)', bullet = '- '): string {
  return error.issues.map((i) => `${bullet}${formatZodIssue(i, root)}`).join('\n');
}
