import { describe, expect, it } from 'vitest';
import { emulatedModelKeepsPriorThinking } from '../../../src/emulators/anthropic-messages/anthropic-emulator-models.js';
import { SPEC_PRIOR_THINKING_MODELS } from '../../support/anthropic-routes.js';

// SPEC §9.1: the emulator's own table of models that keep earlier turns' thinking, held against
// the spec's test list (test/support/anthropic-routes.ts; the replay policy is checked against it too).
describe('Anthropic emulator model table (SPEC §9.1)', () => {
  it.each<[string, boolean]>([
    ...SPEC_PRIOR_THINKING_MODELS,
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
