export { ScriptedModel, type ScriptReply, type ScriptedModelOptions } from './scripted-model.js';
