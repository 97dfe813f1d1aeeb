export { jsonParser, balancedObjects } from './json-parser.js';
