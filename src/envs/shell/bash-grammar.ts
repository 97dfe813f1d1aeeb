// Its declarations name Node's types: the reference lets a consumer whose tsconfig lacks `types: ["node"]` find them.
/// <reference types="node" preserve="true" />
import { createRequire } from 'node:module';
import type { Language, Parser } from 'web-tree-sitter';

/** A node of a parsed command line, copied out of tree-sitter's tree into plain objects once. */
export interface SyntaxNode {
  type: string;
  /** The field of its parent it fills (`name`, `argument`, `redirect`, `body`, ...), if any. */
  field: string | null;
  /** Offsets in the parsed text (UTF-16 code units, as JavaScript strings count). */
  start: number;
  end: number;
  /** True for an ERROR node or a node the parser made up to recover (a missing `)`). */
  broken: boolean;
  parent: SyntaxNode | null;
  children: SyntaxNode[];
}

/** Bounds on one parse, so that no input can hang the judge or exhaust its memory. */
export interface ParseLimits {
  /** Deepest nesting of nodes accepted. */
  maxDepth: number;
  /** Most nodes accepted. */
  maxNodes: number;
  /** Most progress callbacks of the parser (each after a fixed amount of its work) before it is cancelled. */
  maxProgress: number;
}

let runtime: Promise<{ language: Language; Parser: typeof Parser }> | undefined;

/**
 * tree-sitter's bash grammar (the `tree-sitter-bash` package's WASM build, run by `web-tree-sitter`), loaded once
 * per process: web-tree-sitter keeps one WASM runtime per process, and initialising it again would replace it under
 * the parsers already made. The grammar is data shipped in the package; nothing is downloaded.
 */
function bashLanguage(): Promise<{ language: Language; Parser: typeof Parser }> {
  runtime ??= (async () => {
    // Imported here, not at the top: a process that never judges a command line never loads it.
    const ts = await import('web-tree-sitter');
    await ts.Parser.init();
    const wasm = createRequire(import.meta.url).resolve('tree-sitter-bash/tree-sitter-bash.wasm');
    return { language: await ts.Language.load(wasm), Parser: ts.Parser };
  })();
  runtime.catch(() => (runtime = undefined));
  return runtime;
}

/** A bash parser: tree-sitter-bash, loaded with {@link BashGrammar.load}, then synchronous. */
export class BashGrammar {
  private constructor(private readonly parser: Parser) {}

  /** Loads the grammar (once per process; a few tens of milliseconds the first time) and makes a parser. */
  static async load(): Promise<BashGrammar> {
    const { language, Parser } = await bashLanguage();
    const parser = new Parser();
    parser.setLanguage(language);
    return new BashGrammar(parser);
  }

  /** The syntax tree of `text`, or the reason it exceeds `limits`. */
  parse(text: string, limits: ParseLimits): SyntaxNode | string {
    let progress = 0;
    const tree = this.parser.parse(text, null, {
      // Typed as returning void, but a true answer cancels the parse (web-tree-sitter's ParseOptions docs).
      progressCallback: (() => ++progress > limits.maxProgress) as () => void,
    });
    if (!tree) return `it takes the parser more than ${limits.maxProgress} rounds of work`;
    try {
      return copyTree(tree.walk(), limits);
    } finally {
      tree.delete();
    }
  }
}

/** Copies the tree under the cursor into plain nodes, without recursion (the depth is bounded by `limits`). */
function copyTree(cursor: ReturnType<NonNullable<ReturnType<Parser['parse']>>['walk']>, limits: ParseLimits) {
  const node = (parent: SyntaxNode | null): SyntaxNode => ({
    type: cursor.nodeType,
    field: cursor.currentFieldName,
    start: cursor.startIndex,
    end: cursor.endIndex,
    broken: cursor.nodeIsMissing || cursor.nodeType === 'ERROR',
    parent,
    children: [],
  });
  const root = node(null);
  const path: SyntaxNode[] = [root];
  let count = 1;
  try {
    for (;;) {
      if (cursor.gotoFirstChild()) {
        if (path.length >= limits.maxDepth) return `it is nested more than ${limits.maxDepth} levels deep`;
      } else {
        while (!cursor.gotoNextSibling()) {
          if (!cursor.gotoParent()) return root;
          path.pop();
        }
        path.pop();
      }
      if (++count > limits.maxNodes) return `it has more than ${limits.maxNodes} syntax nodes`;
      const parent = path[path.length - 1];
      const child = node(parent);
      parent.children.push(child);
      path.push(child);
    }
  } finally {
    cursor.delete();
  }
}
