import '../../core/zod-version.js'; // first: a zod older than 4 stops here with the fix, not deep inside another module
export { jsonParser, balancedObjects } from './json-parser.js';
export { reactParser, type ReactParserOptions } from './react-parser.js';
export { xmlParser, type XmlParserOptions } from './xml-parser.js';
export { nativeParser, type NativeParserOptions } from './native-parser.js';
export { readLiteral, readCallArgs, setKey, LiteralError, type ReadResult } from './literal-reader.js';
