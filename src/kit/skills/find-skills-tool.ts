import { z } from 'zod';
import { defineTool, type Tool } from '../../core/index.js';
import { DEFAULT_MIN_SKILL_SCORE } from './default-min-skill-score.js';
import type { ToolRetrievalService } from './tool-retrieval-service.js';

const parameters = z.object({
  query: z
    .string()
    .min(1)
    .describe('What you need a skill for, in a few words (e.g. "style slides with a color theme").'),
  top: z.number().int().min(1).max(20).optional().describe('How many skills to return (default 5).'),
});

/**
 * The `find_skills` tool: the model searches every installed skill by meaning when the skills listed in the
 * `skill` tool do not fit, and gets names, scores and descriptions; it then loads one with the `skill` tool.
 * Results below `threshold` (default 0.1, as for disclosure: with the hashing embedder unrelated text scores
 * below it; set it for the embedder in use) are left out.
 */
export function findSkillsTool(
  retrieval: ToolRetrievalService,
  options: { threshold?: number } = {},
): Tool<typeof parameters> {
  return defineTool({
    id: 'find_skills',
    description:
      'Search all installed skills by meaning. Use it when none of the skills listed in the skill tool fits the task; ' +
      'then load a skill it finds with the skill tool.',
    parameters,
    async execute({ query, top }) {
      const matches = await retrieval.search(query, {
        top: top ?? 5,
        threshold: options.threshold ?? DEFAULT_MIN_SKILL_SCORE,
      });
      const output = matches.length
        ? `Skills for "${query}" (score: higher is ` +
          `closer):\n${matches.map((m) => `- ${m.name} (${m.score.toFixed(3)}): ${m.description}`).join('\n')}\nLoad ` +
          `one with the skill tool: skill(name="<name>").`
        : `No installed skill matches "${query}".`;
      return {
        output,
        title: `find_skills: ${query}`,
        metadata: { matches: matches.map((m) => ({ name: m.name, score: m.score })) },
      };
    },
  });
}
