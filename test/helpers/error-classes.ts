import type { ErrorKind, QitosErrorKind } from '../../src/core/errors.js';

/**
 * One instance of every error class qitos-ts throws, made from a module namespace (so a test can make it from a
 * second copy of the module), with what it must be: its kind, its name, the fields it keeps, and the kind
 * RECOVER reads it as. `src` is the module's path under src/.
 */
export interface ErrorSample {
  /** The exported class name. */
  cls: string;
  src: string;
  make: (mod: Record<string, unknown>) => Error;
  kind: QitosErrorKind;
  name: string;
  message: string;
  fields?: Record<string, unknown>;
  recover: ErrorKind;
}

type Ctor = new (...args: never[]) => Error;
const ctor = (mod: Record<string, unknown>, cls: string) => mod[cls] as unknown as new (...args: unknown[]) => Error;

function sample(
  cls: string,
  src: string,
  args: unknown[],
  want: Omit<ErrorSample, 'cls' | 'src' | 'make' | 'name'> & { name?: string },
): ErrorSample {
  return { cls, src, make: (mod) => new (ctor(mod, cls))(...args), name: cls, ...want };
}

const CORE = 'core/errors.ts';

export const ERROR_SAMPLES: ErrorSample[] = [
  sample('QitosError', CORE, ['tool', 'no such file'], { kind: 'tool', message: 'no such file', recover: 'tool' }),
  sample('QitosError', CORE, ['internal', 'a bug'], { kind: 'internal', message: 'a bug', recover: 'internal' }),
  sample('ParseError', CORE, ['no JSON', '{'], {
    kind: 'parse',
    message: 'no JSON',
    fields: { raw: '{' },
    recover: 'parse',
  }),
  sample('ModelError', CORE, ['server', 'HTTP 503', 503], {
    kind: 'model_transport',
    message: 'HTTP 503',
    fields: { modelKind: 'server', status: 503, retryable: true },
    recover: 'model_transport',
  }),
  sample('ModelError', CORE, ['bad_request', 'HTTP 400', 400], {
    kind: 'model_request',
    message: 'HTTP 400',
    fields: { modelKind: 'bad_request', retryable: false },
    recover: 'model_request',
  }),
  sample('ModelError', CORE, ['unreachable', 'ECONNREFUSED'], {
    kind: 'model_request',
    message: 'ECONNREFUSED',
    fields: { retryable: true },
    recover: 'model_request',
  }),
  sample('ModelError', CORE, ['context_overflow', 'too long', 400], {
    kind: 'context_overflow',
    message: 'too long',
    recover: 'context_overflow',
  }),
  sample('ModelError', CORE, ['aborted', 'request aborted'], {
    kind: 'aborted',
    message: 'request aborted',
    recover: 'aborted',
  }),
  sample('ProviderError', 'models/provider-error.ts', ['rate_limit', 'HTTP 429', { status: 429, retryAfterMs: 1500 }], {
    kind: 'model_transport',
    // A provider's error is a ModelError to whoever prints it.
    name: 'ModelError',
    message: 'HTTP 429',
    fields: { modelKind: 'rate_limit', status: 429, retryAfterMs: 1500 },
    recover: 'model_transport',
  }),
  sample('EnvError', CORE, ['sensor offline'], { kind: 'env', message: 'sensor offline', recover: 'env' }),
  sample('AbortedError', CORE, [], { kind: 'aborted', message: 'run aborted', recover: 'aborted' }),
  sample('TimeBudgetError', CORE, [5], {
    kind: 'aborted',
    message: 'time budget of 5s reached',
    fields: { maxSeconds: 5 },
    recover: 'aborted',
  }),
  sample(
    'ReplayDriftError',
    'trace/replay-drift.ts',
    [{ step: 2, parts: ['system'], message: 'system prompt differs' }],
    {
      kind: 'model_request',
      message: 'system prompt differs',
      fields: { drift: { step: 2, parts: ['system'], message: 'system prompt differs' } },
      recover: 'model_request',
    },
  ),
  sample('TraceError', 'trace/trace-reader.ts', ['not a trace: /tmp/x is not a folder'], {
    kind: 'trace',
    message: 'not a trace: /tmp/x is not a folder',
    recover: 'internal',
  }),
  sample('ChatRequestError', 'server/chat-request.ts', ['messages: expected an array', 'messages'], {
    kind: 'http',
    message: 'messages: expected an array',
    fields: { param: 'messages' },
    recover: 'internal',
  }),
  sample('HttpError', 'server/openai-error.ts', [404, 'no such run', 'not_found_error', 'run_not_found', 'id'], {
    kind: 'http',
    message: 'no such run',
    fields: { status: 404, type: 'not_found_error', code: 'run_not_found', param: 'id', headers: {} },
    recover: 'internal',
  }),
  sample('SkillZipError', 'kit/skills/skill-zip.ts', ['entry "../x" leaves the folder'], {
    kind: 'skill',
    message: 'skill ZIP refused: entry "../x" leaves the folder',
    recover: 'internal',
  }),
  sample('YamlError', 'kit/yaml/parse-yaml.ts', ['bad indentation', 3, 7], {
    kind: 'yaml',
    message: 'bad indentation',
    fields: { line: 3, column: 7 },
    recover: 'internal',
  }),
  sample('VariableError', 'kit/prompts/variable-engine.ts', ['unknown variable {{x}}', ['x']], {
    kind: 'prompt',
    message: 'unknown variable {{x}}',
    fields: { variables: ['x'] },
    recover: 'internal',
  }),
  sample('EditError', 'kit/tools/edit-text.ts', ['oldString was not found'], {
    kind: 'edit',
    message: 'oldString was not found',
    recover: 'internal',
  }),
  sample('ExprError', 'kit/expr/expr-error.ts', ['unknown name "y"', 4], {
    kind: 'expr',
    message: 'unknown name "y"',
    fields: { column: 4 },
    recover: 'internal',
  }),
  sample('ArithmeticError', 'kit/tools/arithmetic.ts', ['division by zero', 3], {
    kind: 'expr',
    message: 'division by zero',
    fields: { column: 3 },
    recover: 'internal',
  }),
  sample('LinearRegexError', 'kit/expr/linear-regex.ts', ['backreferences are not supported'], {
    kind: 'expr',
    message: 'backreferences are not supported',
    recover: 'internal',
  }),
  sample('WorkflowError', 'kit/workflow/workflow-error.ts', ['node "a": unknown type', { nodeId: 'a', line: 4 }], {
    kind: 'workflow',
    message: 'node "a": unknown type',
    fields: { nodeId: 'a', field: undefined, line: 4, column: undefined },
    recover: 'internal',
  }),
  sample('McpMessageTooLargeError', 'kit/mcp/capped-fetch.ts', [1024], {
    kind: 'mcp',
    message: 'the server sent a message larger than 1024 bytes (the maxMessageBytes limit)',
    fields: { limit: 1024 },
    recover: 'internal',
  }),
  sample('ModelConfigError', 'models/model-config-error.ts', ['unknown provider "x"'], {
    kind: 'config',
    message: 'unknown provider "x"',
    recover: 'internal',
  }),
  sample('PermissionConfigError', 'core/permission-rules.ts', [['bash', 'rm *'], 'expected "allow"', 'permission'], {
    kind: 'config',
    message: 'permission.bash."rm *": expected "allow"',
    fields: { path: ['bash', 'rm *'], reason: 'expected "allow"' },
    recover: 'internal',
  }),
  sample('PyException', 'bench/tau-bench/py/py-value.ts', ['KeyError', "'user_id'"], {
    kind: 'bench',
    // It reads as the Python exception it stands for.
    name: 'KeyError',
    message: "'user_id'",
    fields: { pyType: 'KeyError' },
    recover: 'internal',
  }),
  sample('PyLiteralError', 'bench/tau-bench/py/py-literal.ts', ['tasks.py', 3, 9, 'unexpected ")"'], {
    kind: 'bench',
    message: 'tasks.py:3:9: unexpected ")"',
    fields: { file: 'tasks.py', line: 3, col: 9 },
    recover: 'internal',
  }),
  sample('AppError', 'app/app-error.ts', ['no such file: a.yaml', 3, { detail: 'more' }], {
    kind: 'input',
    message: 'no such file: a.yaml',
    fields: { exitCode: 3, detail: 'more' },
    recover: 'internal',
  }),
];

/** The class of a sample in a module namespace. */
export function sampleClass(mod: Record<string, unknown>, s: ErrorSample): Ctor & { isInstance(e: unknown): boolean } {
  return mod[s.cls] as Ctor & { isInstance(e: unknown): boolean };
}
