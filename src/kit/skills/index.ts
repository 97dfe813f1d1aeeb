import '../../core/zod-version.js'; // first: a zod older than 4 stops here with the fix, not deep inside another module
export { SkillFrontmatter, parseSkillFile, type SkillFile } from './skill-file.js';
export { loadSkills, skillFiles, type Skill, type SkillCatalog, type SkippedSkill } from './skill-catalog.js';
export { skillTool } from './skill-tool.js';
