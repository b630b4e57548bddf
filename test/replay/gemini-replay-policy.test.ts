import { describe, expect, it } from 'vitest';
import type { AssistantMessage } from '../../src/core/message.js';
import type { Route } from '../../src/core/route.js';
import {
  geminiSignatureVerdict,
  messageLevelSignature,
  resolveGeminiRoute,
  toolCallSignature,
} from '../../src/replay/gemini-replay-policy.js';

describe('Gemini route facts (SPEC §11, §23.2)', () => {
  it.each<
    [
      string,
      Route,
      { issuerKind: string; issuer: string; family: string | null; generation: number | null; thinkingStyle: string },
    ]
  >([
    [
      'AI Studio default',
      { api: 'gemini', provider: 'gemini', model: 'gemini-3-pro-preview' },
      { issuerKind: 'ai-studio', issuer: 'ai-studio', family: 'gemini-3.0', generation: 3, thinkingStyle: 'level' },
    ],
    [
      'AI Studio host, models/ prefix',
      {
        api: 'gemini',
        provider: 'google',
        model: 'models/gemini-2.5-flash',
        baseUrl: 'https://generativelanguage.googleapis.com/v1beta',
      },
      { issuerKind: 'ai-studio', issuer: 'ai-studio', family: 'gemini-2.5', generation: 2, thinkingStyle: 'budget' },
    ],
    [
      'Vertex regional host',
      {
        api: 'gemini',
        provider: 'gemini',
        model: 'gemini-3.1-pro-preview',
        baseUrl: 'https://us-central1-aiplatform.googleapis.com/v1/projects/p/locations/us-central1',
      },
      { issuerKind: 'vertex', issuer: 'vertex', family: 'gemini-3.1', generation: 3, thinkingStyle: 'level' },
    ],
    [
      'Vertex global host',
      {
        api: 'gemini',
        provider: 'x',
        model: 'gemini-3-flash-preview',
        baseUrl: 'https://aiplatform.googleapis.com/v1/projects/p/locations/global',
      },
      { issuerKind: 'vertex', issuer: 'vertex', family: 'gemini-3.0', generation: 3, thinkingStyle: 'level' },
    ],
    [
      'Vertex provider id without URL',
      { api: 'gemini', provider: 'Vertex', model: 'gemini-2.5-pro' },
      { issuerKind: 'vertex', issuer: 'vertex', family: 'gemini-2.5', generation: 2, thinkingStyle: 'budget' },
    ],
    [
      'emulator, Vertex path shape',
      {
        api: 'gemini',
        provider: 'gemini',
        model: 'gemini-3-pro-preview',
        baseUrl: 'http://127.0.0.1:8080/v1/projects/p/locations/l',
      },
      { issuerKind: 'vertex', issuer: 'vertex@127.0.0.1', family: 'gemini-3.0', generation: 3, thinkingStyle: 'level' },
    ],
    [
      'emulator, AI Studio path shape',
      { api: 'gemini', provider: 'gemini', model: 'gemini-flash-latest', baseUrl: 'http://127.0.0.1:8080/v1beta' },
      {
        issuerKind: 'ai-studio',
        issuer: 'ai-studio@127.0.0.1',
        family: 'gemini-flash-latest',
        generation: null,
        thinkingStyle: 'budget',
      },
    ],
    [
      'not a Gemini model',
      { api: 'gemini', provider: 'gemini', model: 'some-proxy-model' },
      { issuerKind: 'ai-studio', issuer: 'ai-studio', family: null, generation: null, thinkingStyle: 'budget' },
    ],
  ])('%s', (_label, route, expected) => {
    expect(resolveGeminiRoute(route)).toMatchObject(expected);
  });
});

describe('Gemini signature verdicts (SPEC §23.2; unstamped legacy per SPEC §7.4)', () => {
  const studio = resolveGeminiRoute({ api: 'gemini', provider: 'gemini', model: 'gemini-3-pro-preview' });
  const message = (extra: Partial<AssistantMessage> & Record<string, unknown>): AssistantMessage =>
    ({ role: 'assistant', content: 'x', ...extra }) as AssistantMessage;
  const origin = {
    api: 'gemini' as const,
    provider: 'gemini',
    host: 'generativelanguage.googleapis.com',
    model: 'gemini-3-flash-preview',
  };

  it.each<[string, AssistantMessage, boolean, string]>([
    ['legacy unstamped', message({}), true, 'legacy unstamped message, Gemini route'],
    ['same issuer, same family', message({ origin }), true, 'same issuer and model family'],
    [
      'stored issuer wins over host',
      message({ origin, gemini_issuer: 'vertex' }),
      false,
      'foreign origin (issuer vertex)',
    ],
    [
      'other family',
      message({ origin: { ...origin, model: 'gemini-2.5-pro' } }),
      false,
      'foreign origin (model family gemini-2.5)',
    ],
    [
      'Gemini OpenAI-compat turn is another wire API',
      message({ origin: { ...origin, api: 'chat_completions' } }),
      false,
      'foreign origin (chat_completions)',
    ],
    [
      'Vertex host',
      message({ origin: { ...origin, host: 'europe-west4-aiplatform.googleapis.com' } }),
      false,
      'foreign origin (issuer vertex)',
    ],
  ])('%s', (_label, stored, travel, reason) => {
    expect(geminiSignatureVerdict(stored, studio)).toEqual({ travel, reason });
  });

  it('never sends signatures to a non-Gemini model', () => {
    const proxy = resolveGeminiRoute({ api: 'gemini', provider: 'gemini', model: 'proxy-model' });
    expect(geminiSignatureVerdict(message({}), proxy)).toEqual({ travel: false, reason: 'route model is not Gemini' });
  });

  it('reads signatures from extra_content.google, then the flat key, never a blank one (SPEC §7.2, §11)', () => {
    expect(toolCallSignature({ google: { thought_signature: 'A' }, thought_signature: 'B' })).toBe('A');
    expect(toolCallSignature({ thought_signature: 'B' })).toBe('B');
    expect(toolCallSignature({ google: { thought_signature: '  ' } })).toBeUndefined();
    expect(
      messageLevelSignature(
        message({
          reasoning_details: [
            { type: 'reasoning.text', text: 't' },
            { type: 'hermes.native_assistant', extra_content: { google: { thought_signature: 'M' } } },
          ],
        }),
      ),
    ).toBe('M');
  });
});
