/**
 * The score below which a search leaves a skill out unless told otherwise (`find_skills`, disclosure, `qitos skills
 * search`): with the hashing embedder, text that shares no words with the query scores around 0 or below.
 */
export const DEFAULT_MIN_SKILL_SCORE = 0.1;
