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
// Embedders are models (src/models/embedders, qitos-ts/models) and the skill scripts' sandbox is the envs'
// (src/envs/sandbox, qitos-ts/envs). Their re-exports here stay for one minor version, each name deprecated.
export {
  /** @deprecated Import it from `qitos-ts/models`; this re-export leaves `qitos-ts/skills` in 0.3.0. */
  hashingEmbedder,
  /** @deprecated Import it from `qitos-ts/models`; this re-export leaves `qitos-ts/skills` in 0.3.0. */
  hashText,
  /** @deprecated Import it from `qitos-ts/models`; this re-export leaves `qitos-ts/skills` in 0.3.0. */
  openAIEmbedder,
  /** @deprecated Import it from `qitos-ts/models`; this re-export leaves `qitos-ts/skills` in 0.3.0. */
  transformersEmbedder,
  /** @deprecated Import it from `qitos-ts/models`; this re-export leaves `qitos-ts/skills` in 0.3.0. */
  type HashingEmbedderOptions,
  /** @deprecated Import it from `qitos-ts/models`; this re-export leaves `qitos-ts/skills` in 0.3.0. */
  type OpenAIEmbedderOptions,
  /** @deprecated Import it from `qitos-ts/models`; this re-export leaves `qitos-ts/skills` in 0.3.0. */
  type TransformersEmbedderOptions,
} from '../../models/embedders/index.js';
export {
  /** @deprecated Import it from `qitos-ts/envs`; this re-export leaves `qitos-ts/skills` in 0.3.0. */
  SkillsSandboxExecutor,
  /** @deprecated Import it from `qitos-ts/envs`; this re-export leaves `qitos-ts/skills` in 0.3.0. */
  sandboxHint,
  /** @deprecated Import it from `qitos-ts/envs`; this re-export leaves `qitos-ts/skills` in 0.3.0. */
  type SkillsSandboxOptions,
  /** @deprecated Import it from `qitos-ts/envs`; this re-export leaves `qitos-ts/skills` in 0.3.0. */
  type SkillScriptResult,
  /** @deprecated Import it from `qitos-ts/envs`; this re-export leaves `qitos-ts/skills` in 0.3.0. */
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
