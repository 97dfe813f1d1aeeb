/**
 * Keys to look a model id up by, most specific first: the id itself, then without a date or `-latest`
 * suffix (`claude-sonnet-4-5-20250929` -> `claude-sonnet-4-5`, `gpt-4o-2024-08-06` -> `gpt-4o`).
 */
export function modelIdCandidates(model: string): string[] {
  const undated = model.replace(/-(\d{8}|\d{4}-\d{2}-\d{2}|latest)$/, '');
  return undated === model ? [model] : [model, undated];
}
