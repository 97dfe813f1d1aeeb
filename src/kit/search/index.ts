import '../../core/zod-version.js'; // first: a zod older than 4 stops here with the fix, not deep inside another module
export { greedySearch, beamSearch, bestFirstSearch, treeSearch } from './searches.js';
export { frontierSearch, type FrontierSearchOptions, type Priority } from './frontier-search.js';
export { scoreWith, type CandidateScorer } from './candidate-scorer.js';
