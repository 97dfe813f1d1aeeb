// Two installed copies of qitos-ts in one process (a CLI installed apart from a project's own, two versions under
// one node_modules): the errors of one are recognised by the other with isInstance, where instanceof says no.
// Prints one JSON line.
import { cp } from 'node:fs/promises';

await cp('node_modules/qitos-ts', 'second/node_modules/qitos-ts', { recursive: true, dereference: true });
const second = (path) => import(`./second/node_modules/qitos-ts/dist/${path}`);

const A = await import('qitos-ts');
const ATrace = await import('qitos-ts/trace');
const B = await second('index.js');
const BTrace = await second('trace/index.js');
const BParsers = await second('kit/parsers/index.js');
const BTesting = await second('kit/testing/index.js');

const parseError = new B.ParseError('no JSON');
const traceError = new BTrace.TraceError('not a trace');

// An agent built with the second copy (its parser throws that copy's ParseError), run by the first copy's Engine.
class Agent extends B.AgentModule {
  initState(task) {
    return B.baseState(task, 4);
  }
}
const model = new BTesting.ScriptedModel(['I think it is 42', '{"final_answer": "42"}']);
const run = await new A.Engine({ agent: new Agent({ model, parser: BParsers.jsonParser() }), trace: false }).run(
  'What is 6 * 7?',
);

console.log(
  JSON.stringify({
    copies: A.QitosError !== B.QitosError && ATrace.TraceError !== BTrace.TraceError,
    instanceOf: [parseError instanceof A.ParseError, traceError instanceof ATrace.TraceError],
    isInstance: [
      A.ParseError.isInstance(parseError),
      A.QitosError.isInstance(parseError),
      ATrace.TraceError.isInstance(traceError),
      B.ModelError.isInstance(new A.ModelError('server', 'HTTP 503')),
    ],
    otherClass: [A.ParseError.isInstance(new B.ModelError('server', 'HTTP 503')), A.ParseError.isInstance(traceError)],
    kind: traceError.kind,
    run: { stopReason: run.stopReason, finalResult: run.finalResult, failures: run.failures },
  }),
);
