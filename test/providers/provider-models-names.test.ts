import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { EMULATOR_PERSONA_ROUTES } from '../../src/cli/cli-emulator-route.js';
import { providerModels } from '../../src/providers/provider-models.js';

/**
 * One set of model names: what `hermes model` lists for a provider is what its emulator persona
 * answers as (its default model) and what the README and docs/emulators.md name.
 */

describe('model names agree across hermes model, the emulators and the docs', () => {
  const personas = Object.entries(EMULATOR_PERSONA_ROUTES).filter(([, route]) => route.provider !== 'custom');

  it.each(personas)(
    'persona %s: its model is the default model hermes model lists for its provider',
    (_name, route) => {
      expect(providerModels(route.provider)?.defaultModel).toBe(route.model);
    },
  );

  it('every --provider P --model M the README and docs/emulators.md show is listed for P', () => {
    const text = ['README.md', 'docs/emulators.md'].map((path) => readFileSync(path, 'utf8')).join('\n');
    const pairs = [...text.matchAll(/--provider ([a-z-]+) --model ([^\s`]+)/g)].map((match) => [match[1], match[2]]);
    expect(pairs.length).toBeGreaterThan(0);
    for (const [provider, model] of pairs) {
      expect({ provider, listed: providerModels(provider ?? '')?.models.includes(model ?? '') }).toEqual({
        provider,
        listed: true,
      });
    }
  });
});
