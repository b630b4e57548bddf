import { describe, expect, it } from 'vitest';
import {
  continuityReport,
  describeContinuity,
  sealReasoning,
  type ScriptMessage,
} from '../../../src/emulators/shared/scripted-model.js';

/**
 * SPEC §26.8: the continuity sentence judges only the model's own reasoning. Turns it did not
 * issue — marked foreign by the emulator's reader, or whose reasoning came back as plain text
 * (demoted, SPEC §25.3) — are counted apart and never make it say `broken`.
 */

const own = sealReasoning('Turn 1: to answer I should call read_file.');
const user: ScriptMessage = { role: 'user', text: 'q' };

describe('the continuity sentence (SPEC §26.8)', () => {
  it('counts own reasoning as intact, altered or missing', () => {
    const messages: ScriptMessage[] = [
      user,
      { role: 'assistant', text: '', reasoning: own },
      { role: 'assistant', text: '', reasoning: `${own} edited` },
      { role: 'assistant', text: 'no reasoning came back' },
    ];
    expect(continuityReport(messages)).toEqual({ turns: 3, intact: 1, altered: 1, missing: 1, foreign: 0 });
    expect(describeContinuity(continuityReport(messages))).toBe(
      'Reasoning continuity: broken (1 intact, 1 altered, 1 missing of 3).',
    );
  });

  it('a turn its reader marks foreign, or whose reasoning came back as text, is foreign', () => {
    const messages: ScriptMessage[] = [
      user,
      { role: 'assistant', text: `${sealReasoning('Turn 1: another model thought.')}\n\nanswer` },
      { role: 'assistant', text: '', foreign: true, toolCalls: [{ id: 'call_2_1', name: 'x', arguments: '{}' }] },
      { role: 'assistant', text: '', reasoning: own },
    ];
    expect(continuityReport(messages)).toEqual({ turns: 3, intact: 1, altered: 0, missing: 0, foreign: 2 });
    expect(describeContinuity(continuityReport(messages))).toBe(
      'Reasoning continuity: intact (1/1). Foreign turns: 2 (not issued by this model; not counted).',
    );
    expect(describeContinuity(continuityReport(messages.slice(0, 3)))).toBe(
      'Reasoning continuity: no turn of this model yet. Foreign turns: 2 (not issued by this model; not counted).',
    );
  });

  it('with no earlier turn: first turn', () => {
    expect(describeContinuity(continuityReport([user]))).toBe('Reasoning continuity: first turn.');
  });
});
