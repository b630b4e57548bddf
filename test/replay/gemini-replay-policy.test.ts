import { describe, expect, it } from 'vitest';
import type { AssistantMessage } from '../../src/core/message.js';
import type { Route } from '../../src/core/route.js';
import {
  geminiSignatureVerdict,
  messageLevelSignature,
  resolveGeminiRoute,
  toolCallSignature,
} from '../../src/replay/gemini-replay-policy.js';
import { routeTo } from '../support/messages.js';

describe('Gemini route facts (SPEC §11, §23.2)', () => {
  const gemini = (provider: string, model: string, baseUrl?: string) => routeTo('gemini', provider, model, baseUrl);
  const facts = (
    issuerKind: string,
    issuer: string,
    family: string | null,
    generation: number | null,
    thinkingStyle: string,
  ) => ({ issuerKind, issuer, family, generation, thinkingStyle });
  const VERTEX_REGIONAL = 'https://us-central1-aiplatform.googleapis.com/v1/projects/p/locations/us-central1';
  const VERTEX_GLOBAL = 'https://aiplatform.googleapis.com/v1/projects/p/locations/global';
  it.each<[string, Route, ReturnType<typeof facts>]>([
    [
      'AI Studio default',
      gemini('gemini', 'gemini-3-pro-preview'),
      facts('ai-studio', 'ai-studio', 'gemini-3.0', 3, 'level'),
    ],
    [
      'AI Studio host, models/ prefix',
      gemini('google', 'models/gemini-2.5-flash', 'https://generativelanguage.googleapis.com/v1beta'),
      facts('ai-studio', 'ai-studio', 'gemini-2.5', 2, 'budget'),
    ],
    [
      'Vertex regional host',
      gemini('gemini', 'gemini-3.1-pro-preview', VERTEX_REGIONAL),
      facts('vertex', 'vertex', 'gemini-3.1', 3, 'level'),
    ],
    [
      'Vertex global host',
      gemini('x', 'gemini-3-flash-preview', VERTEX_GLOBAL),
      facts('vertex', 'vertex', 'gemini-3.0', 3, 'level'),
    ],
    [
      'Vertex provider id without URL',
      gemini('Vertex', 'gemini-2.5-pro'),
      facts('vertex', 'vertex', 'gemini-2.5', 2, 'budget'),
    ],
    [
      'emulator, Vertex path shape',
      gemini('gemini', 'gemini-3-pro-preview', 'http://127.0.0.1:8080/v1/projects/p/locations/l'),
      facts('vertex', 'vertex@127.0.0.1', 'gemini-3.0', 3, 'level'),
    ],
    [
      'emulator, AI Studio path shape',
      gemini('gemini', 'gemini-flash-latest', 'http://127.0.0.1:8080/v1beta'),
      facts('ai-studio', 'ai-studio@127.0.0.1', 'gemini-flash-latest', null, 'budget'),
    ],
    ['not a Gemini model', gemini('gemini', 'some-proxy-model'), facts('ai-studio', 'ai-studio', null, null, 'budget')],
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
