import '../../core/zod-version.js'; // first: a zod older than 4 stops here with the fix, not deep inside another module
export {
  SkillFrontmatter,
  MAX_DESCRIPTION_CHARS,
  parseSkillFile,
  withDescription,
  type SkillFile,
} from './skill-file.js';
export {
  loadSkills,
  skillFiles,
  catalogOf,
  unknownSkillMessage,
  similarNames,
  type Skill,
  type SkillCatalog,
  type SkippedSkill,
} from './skill-catalog.js';
export { skillTool } from './skill-tool.js';
export {
  extractSkillZip,
  entryNameProblem,
  SkillZipError,
  type SkillZipLimits,
  type ExtractedSkill,
} from './skill-zip.js';
export {
  SkillManager,
  type SkillManagerOptions,
  type SkillStep,
  type InstalledSkill,
  type InstallResult,
} from './skill-manager.js';
export { DEFAULT_MIN_SKILL_SCORE } from './default-min-skill-score.js';
export {
  ToolRetrievalService,
  type SkillMatch,
  type SyncReport,
  type ToolRetrievalOptions,
} from './tool-retrieval-service.js';
// Embedders are models (src/models/embedders, also in qitos-ts/models); kept here for code that imports them from skills.
export {
  hashingEmbedder,
  hashText,
  openAIEmbedder,
  transformersEmbedder,
  type HashingEmbedderOptions,
  type OpenAIEmbedderOptions,
  type TransformersEmbedderOptions,
} from '../../models/embedders/index.js';
// The sandbox is the envs' (src/envs/sandbox, with HostEnv's command sandbox); kept here for code that imports it from skills.
export {
  SkillsSandboxExecutor,
  sandboxHint,
  type SkillsSandboxOptions,
  type SkillScriptResult,
  type SandboxInfo,
} from '../../envs/index.js';
export { skillScriptTool, type SkillScriptToolOptions } from './skill-script-tool.js';
export { findSkillsTool } from './find-skills-tool.js';
export {
  discloseSkills,
  recordedSkillSelection,
  SkillSelection,
  SKILLS_DISCLOSED,
  type SkillDisclosure,
  type SkillDisclosureOptions,
} from './skill-disclosure.js';
