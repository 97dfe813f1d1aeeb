import { describe, expect, it } from 'vitest';
import { Engine } from '../../../src/engine/engine.js';
import CalculatorAgent, { SAMPLE_TASK as CALC_TASK, scriptedCalculatorModel } from '../../../examples/calculator-agent.js';
import FileEditorAgent, { SAMPLE_TASK as EDIT_TASK, sampleWorkspace, scriptedFileEditorModel } from '../../../examples/file-editor-agent.js';

describe('examples (offline, on ScriptedModel)', () => {
  it('the calculator agent computes the change through the calculate tool', async () => {
    const model = scriptedCalculatorModel();
    const r = await new Engine({ agent: new CalculatorAgent({ model }), trace: false }).run(CALC_TASK);
    expect(r.stopReason).toBe('final');
    expect(Number(r.finalResult)).toBe(50 - 12 * 3.5);
    expect(r.state.metrics.toolCalls).toBe(2);
    expect(model.requests[0].messages[0].role === 'system' && model.requests[0].messages[0].content).toContain('- calculate:');
  });

  it('the file editor agent fixes the sample file with a multi-line edit holding an else: line', async () => {
    const env = sampleWorkspace();
    const r = await new Engine({ agent: new FileEditorAgent({ model: scriptedFileEditorModel() }), env, trace: false }).run(EDIT_TASK);
    expect(r.stopReason).toBe('final');
    expect(env.snapshot()['pricing.py']).toBe('def price(amount, member):\n    if member:\n        return amount * 0.9\n    else:\n        return amount\n');
    expect(r.state.metrics).toMatchObject({ toolCalls: 3, toolErrors: 0 });
    expect(r.finalResult).toMatch(/full price/);
  });
});
