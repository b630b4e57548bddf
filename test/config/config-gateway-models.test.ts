import { describe, expect, it } from 'vitest';
import { parseConfigText } from '../../src/config/config-load.js';

/** `gateway.models` (docs/gateway.md "Choosing the route by model name"). */
describe('config.yaml gateway.models', () => {
  it('reads PROVIDER:MODEL strings and route objects, in file order', () => {
    const config = parseConfigText(
      [
        'gateway:',
        '  models:',
        '    claude-sonnet-4-5: deepseek:deepseek-v4-flash',
        "    'claude-haiku-*': openrouter:deepseek/deepseek-r1:free",
        '    gemini: { provider: google, model: gemini-3-pro-preview, api: gemini, base_url: https://g.example }',
      ].join('\n'),
    );
    expect(config.gatewayModels).toEqual([
      { name: 'claude-sonnet-4-5', provider: 'deepseek', model: 'deepseek-v4-flash' },
      { name: 'claude-haiku-*', provider: 'openrouter', model: 'deepseek/deepseek-r1:free' },
      {
        name: 'gemini',
        provider: 'google',
        model: 'gemini-3-pro-preview',
        api: 'gemini',
        baseUrl: 'https://g.example',
      },
    ]);
  });

  it.each([
    [
      'a name without a provider',
      'gateway:\n  models:\n    x: deepseek-v4-flash\n',
      /gateway\.models\.x.*PROVIDER:MODEL/,
    ],
    ['an unknown key', 'gateway:\n  models:\n    x: { provider: a, model: b, key: c }\n', /unknown key "key"/],
    ['an unknown gateway key', 'gateway:\n  routes: {}\n', /gateway: unknown key "routes".*known keys here: models/],
  ])('refuses %s with one line naming it', (_what, text, message) => {
    expect(() => parseConfigText(text)).toThrow(message);
  });
});
