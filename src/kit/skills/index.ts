export { SkillFrontmatter, parseSkillFile, type SkillFile } from './skill-file.js';
export { loadSkills, skillFiles, type Skill, type SkillCatalog, type SkippedSkill } from './skill-catalog.js';
export { skillTool } from './skill-tool.js';
