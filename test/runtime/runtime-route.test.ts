import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/core/errors.js';
import { DEFAULT_CONFIG } from '../../src/config/config-load.js';
import { resolveRoute } from '../../src/runtime/runtime-route.js';

/**
 * Route flags are validated before anything is sent: a typo in --api or --base-url is a usage
 * error (exit 2) naming the flag, on real and emulator routes alike.
 */

const cases = [
  {
    name: '--api typo on an emulator route (was silently ignored)',
    flags: { provider: 'emulator:openrouter', api: 'nosuch' },
    message:
      'unknown --api "nosuch" (expected one of: chat_completions, anthropic_messages, bedrock_converse, gemini, codex_responses)',
  },
  {
    name: '--base-url without a scheme (was retried three times as a network failure)',
    flags: { provider: 'openai', model: 'gpt-5', baseUrl: 'notaurl' },
    message: '--base-url "notaurl" is not an http(s) URL (e.g. https://api.example.com/v1)',
  },
  {
    name: '--base-url with a non-http scheme',
    flags: { provider: 'openai', model: 'gpt-5', baseUrl: 'ftp://127.0.0.1/v1' },
    message: '--base-url "ftp://127.0.0.1/v1" is not an http(s) URL (e.g. https://api.example.com/v1)',
  },
];

describe('resolveRoute: invalid route flags', () => {
  it.each(cases)('$name', ({ flags, message }) => {
    const resolve = () => resolveRoute(flags, { ...DEFAULT_CONFIG }, null, {});
    expect(resolve).toThrow(UsageError);
    expect(resolve).toThrow(message);
  });

  it('a valid loopback base URL is kept as given', () => {
    const resolved = resolveRoute(
      { provider: 'openai', model: 'gpt-5', baseUrl: 'http://127.0.0.1:8080/v1' },
      { ...DEFAULT_CONFIG },
      null,
      {},
    );
    expect(resolved.route).toEqual({
      api: 'chat_completions',
      provider: 'openai',
      model: 'gpt-5',
      baseUrl: 'http://127.0.0.1:8080/v1',
    });
  });
});
