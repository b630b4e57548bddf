import { describe, expect, it } from 'vitest';
import { emulatedModelKeepsPriorThinking } from '../../../src/emulators/anthropic-messages/anthropic-emulator-models.js';

// SPEC §9.1: the emulator's own table of models that keep earlier turns' thinking, held against
// the spec's test list (the replay policy is checked against the same list in test/replay).
describe('Anthropic emulator model table (SPEC §9.1)', () => {
  it.each([
    ['claude-haiku-5', false],
    ['claude-sonnet-4', false],
    ['claude-3-7-sonnet', false],
    ['hermes-4-405b', false],
    ['claude-newfamily-7', true],
    ['claude-mythos-preview', true],
    ['claude-opus-4-8', true],
    ['claude-sonnet-4-5', false],
    ['claude-haiku-4-5', false],
    ['claude-haiku-5-5', true],
    ['claude-sonnet-4-20250514', false],
    ['claude-sonnet-4-6', true],
    ['claude-opus-4-5', true],
    ['us.anthropic.claude-opus-4-8-v1:0', true],
    ['claude-opus-4-8@20251001', true],
    ['anthropic/claude-sonnet-4.5', false],
  ])('%s keeps prior thinking: %s', (model, keeps) => {
    expect(emulatedModelKeepsPriorThinking(model)).toBe(keeps);
  });
});
