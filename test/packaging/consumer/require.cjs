// A CommonJS consumer: require('qitos-ts') loads the ES module (Node >= 20.19) and gets the same classes.
const q = require('qitos-ts');
const { ScriptedModel } = require('qitos-ts/testing');
console.log(
  JSON.stringify({ Engine: typeof q.Engine, AgentModule: typeof q.AgentModule, ScriptedModel: typeof ScriptedModel }),
);
