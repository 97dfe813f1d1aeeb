import type { ExprValue } from './expr-value.js';

/** One step of a member chain: `.name`, `?.name`, `[index]` or `?.[index]`. */
export type MemberStep =
  | { kind: 'field'; name: string; optional: boolean; pos: number }
  | { kind: 'index'; index: ExprNode; optional: boolean; pos: number };

/** Operators of a same-precedence chain, evaluated left to right. */
export type ChainOp = '+' | '-' | '*' | '/' | '%' | '&&' | '||' | '??';
/** Operators of a two-operand node (comparisons do not chain; power is right-associative). */
export type BinaryOp = '==' | '!=' | '<' | '<=' | '>' | '>=' | 'in' | '^';

/**
 * A node of the syntax tree. `pos` is the 0-based offset of the node's operator or first character. Chains of
 * one precedence level are flat (`a + b - c` is one `chain`), so the tree is only as deep as the source nests.
 */
export type ExprNode =
  | { kind: 'literal'; value: ExprValue; pos: number }
  | { kind: 'name'; name: string; pos: number }
  | { kind: 'list'; items: ExprNode[]; pos: number }
  | { kind: 'object'; entries: Array<{ key: string; value: ExprNode }>; pos: number }
  | { kind: 'unary'; op: '-' | '+' | '!'; operand: ExprNode; pos: number }
  | { kind: 'binary'; op: BinaryOp; left: ExprNode; right: ExprNode; pos: number }
  | { kind: 'chain'; first: ExprNode; rest: Array<{ op: ChainOp; operand: ExprNode; pos: number }>; pos: number }
  | { kind: 'member'; object: ExprNode; steps: MemberStep[]; pos: number }
  | { kind: 'call'; name: string; args: ExprNode[]; pos: number }
  | { kind: 'conditional'; test: ExprNode; then: ExprNode; otherwise: ExprNode; pos: number };
