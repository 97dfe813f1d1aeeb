/**
 * A small, safe expression language over plain data: comparisons, boolean logic, arithmetic, member access with
 * dotted paths and indexes, literals and a fixed set of helper functions. No `eval`, no `Function`, no prototype
 * access, bounded length and depth; every error is an ExprError with a column. See docs/expressions.md.
 */
import '../../core/zod-version.js'; // first: a zod older than 4 stops here with the fix, not deep inside another module
export { ExprError } from './expr-error.js';
export { parseExpr, parseTokens, FORBIDDEN_FIELDS, type Expr, type ParseExprOptions } from './parse-expr.js';
export { tokenizeExpr, type Token } from './tokenize-expr.js';
export { evaluateExpr, evaluateCondition, type EvaluateExprOptions, type ExprScope } from './evaluate-expr.js';
export { EXPR_FUNCTIONS, EXPR_MATH_FUNCTIONS, type ExprFunction } from './expr-functions.js';
export { MATH_FUNCTIONS, type MathFunction } from './math-functions.js';
export { formatValue } from './format-value.js';
export { type ExprValue, type ExprObject } from './expr-value.js';
export type { ExprNode, MemberStep, ChainOp, BinaryOp } from './expr-node.js';
