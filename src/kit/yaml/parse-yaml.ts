import { LineCounter, isAlias, parseDocument, visit, type Document } from 'yaml';
import { QitosError, markErrorClass } from '../../core/index.js';

/** How many alias expansions one document may make when it is turned into data (the `yaml` package's `maxAliasCount`). */
export const MAX_YAML_ALIASES = 100;

/** A YAML text that is not usable data: a syntax error, or aliases that expand too much. Line and column are 1-based. */
export class YamlError extends QitosError {
  static {
    markErrorClass(this, 'YamlError');
  }

  constructor(
    message: string,
    readonly line: number,
    readonly column: number,
  ) {
    super('yaml', message);
    this.name = 'YamlError';
  }
}

/** A parsed YAML document, its data, and the line counter that turns its node ranges into lines and columns. */
export interface ParsedYaml {
  doc: Document;
  lines: LineCounter;
  value: unknown;
}

/**
 * Parses YAML text into data, the one way skills, workflows, the config and suite files read YAML. A syntax
 * error, or aliases that expand more than `maxAliases` times (an "alias bomb": a few lines that would become
 * billions of values), is a YamlError naming the line and column (of the error; of the first alias), instead of
 * the `yaml` package's ReferenceError without a position.
 */
export function parseYaml(text: string, options: { maxAliases?: number } = {}): ParsedYaml {
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, prettyErrors: false });
  if (doc.errors.length) {
    const e = doc.errors[0];
    const pos = e.linePos?.[0] ?? lines.linePos(e.pos[0]);
    throw new YamlError(`YAML syntax error: ${e.message.split('\n')[0]}`, pos.line, pos.col);
  }
  const maxAliases = options.maxAliases ?? MAX_YAML_ALIASES;
  try {
    return { doc, lines, value: doc.toJS({ maxAliasCount: maxAliases }) };
  } catch (err) {
    // The yaml package's only error here is its alias limit (a ReferenceError); anything else is a bug to see.
    if (!(err instanceof ReferenceError)) throw err;
    let at = { line: 1, col: 1 };
    visit(doc, {
      Alias(_key, node) {
        if (isAlias(node) && node.range) at = lines.linePos(node.range[0]);
        return visit.BREAK;
      },
    });
    throw new YamlError(
      `YAML aliases expand to too much data (more than ${maxAliases} alias expansions; the first alias is here)`,
      at.line,
      at.col,
    );
  }
}
