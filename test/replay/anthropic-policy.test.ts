/**
 * SPEC §9.1 model list and SPEC §9.2 endpoint list, as tables; WIRE.md §2.1 adaptive/beta rules.
 */
import { describe, expect, it } from 'vitest';
import {
  anthropicEndpointClass,
  anthropicPlatform,
  anthropicThinkingScope,
  classifyAnthropicRoute,
} from '../../src/replay/anthropic-endpoint-route.js';
import {
  needsInterleavedThinkingBeta,
  nativeAnthropicPreservesPriorThinking,
  parseClaudeModel,
  supportsAdaptiveThinking,
} from '../../src/replay/anthropic-thinking-policy.js';
import { ANTHROPIC_BASE_URLS as URL, SPEC_PRIOR_THINKING_MODELS } from '../support/anthropic-routes.js';

describe('SPEC §9.1 native_anthropic_preserves_prior_thinking', () => {
  const table: [string, boolean][] = [
    ...SPEC_PRIOR_THINKING_MODELS,
    // Extra rows: date suffix is not a minor; platform prefixes are tolerated.
    ['claude-sonnet-4-20250514', false],
    ['claude-opus-4-5-20251101', true],
    ['claude-sonnet-4-6', true],
    ['us.anthropic.claude-opus-4-8-v1:0', true],
    ['claude-fable-5', true],
    ['claude-fable-4-9', false],
  ];
  it.each(table)('%s → %s', (model, expected) => {
    expect(nativeAnthropicPreservesPriorThinking(model)).toBe(expected);
  });

  it('parses an 8-digit date as no minor (claude-sonnet-4-20250514 → 4.0)', () => {
    expect(parseClaudeModel('claude-sonnet-4-20250514')).toEqual({
      kind: 'claude',
      version: { family: 'sonnet', major: 4, minor: 0 },
    });
  });
});

describe('WIRE.md §2.1 adaptive thinking and the interleaved-thinking beta', () => {
  const table: [string, boolean, boolean][] = [
    ['claude-opus-4-6', true, false],
    ['claude-opus-4-5', false, true],
    ['claude-sonnet-4-6', true, false],
    ['claude-sonnet-4-5', false, true],
    ['claude-sonnet-4-20250514', false, true],
    ['claude-haiku-5', true, false],
    ['claude-sonnet-5', true, false],
    ['claude-3-7-sonnet-20250219', false, false],
    ['deepseek-reasoner', false, false],
  ];
  it.each(table)('%s: adaptive %s, interleaved beta %s', (model, adaptive, beta) => {
    expect(supportsAdaptiveThinking(model)).toBe(adaptive);
    expect(needsInterleavedThinkingBeta(model)).toBe(beta);
  });
});

describe('SPEC §9.2 endpoint route classification (first match)', () => {
  const table: [string, string | undefined, string, string][] = [
    ['no base URL', undefined, 'claude-opus-4-8', 'native'],
    ['direct', 'https://api.anthropic.com', 'claude-opus-4-8', 'native'],
    ['Nous portal', 'https://inference-api.nousresearch.com/v1', 'claude-opus-4-8', 'native'],
    ['Bedrock', URL.bedrock, 'us.anthropic.claude-opus-4-8-v1:0', 'native'],
    ['Bedrock FIPS', URL.bedrockFips, 'anthropic.claude-opus-4-8', 'native'],
    ['Vertex', URL.vertex, 'claude-opus-4-8', 'native'],
    ['Foundry', URL.foundry, 'claude-opus-4-8', 'native'],
    ['Foundry host without /anthropic', 'https://res.services.ai.azure.com/models', 'claude-opus-4-8', 'third_party'],
    ['Kimi coding', URL.kimi, 'kimi-for-coding', 'kimi'],
    ['Moonshot host', 'https://api.moonshot.ai/anthropic', 'anything', 'kimi'],
    ['Kimi model anywhere', 'https://relay.example.com', 'moonshotai/kimi-k2.5', 'kimi'],
    ['k2 model prefix', 'https://relay.example.com', 'k2-thinking', 'kimi'],
    ['DeepSeek anthropic', URL.deepseek, 'deepseek-reasoner', 'deepseek'],
    ['DeepSeek model on Bedrock', 'https://bedrock-runtime.us-west-2.amazonaws.com', 'us.deepseek.r1-v1:0', 'deepseek'],
    ['MiniMax', URL.minimax, 'MiniMax-M2', 'minimax'],
    ['MiniMax China', 'https://api.minimaxi.com/anthropic', 'MiniMax-M2', 'minimax'],
    ['unknown relay', URL.relay, 'claude-opus-4-8', 'third_party'],
    ['look-alike path', URL.lookAlikePath, 'claude-opus-4-8', 'third_party'],
    ['look-alike host', URL.lookAlikeHost, 'claude-opus-4-8', 'third_party'],
  ];
  it.each(table)('%s', (_name, baseUrl, model, expected) => {
    expect(classifyAnthropicRoute({ baseUrl, model })).toBe(expected);
  });

  it('NOUS_INFERENCE_BASE_URL host is native', () => {
    expect(
      classifyAnthropicRoute({
        baseUrl: 'https://nous.internal.example/v1',
        model: 'claude-opus-4-8',
        nousInferenceBaseUrl: 'https://nous.internal.example',
      }),
    ).toBe('native');
  });

  it('a loopback endpoint takes its platform from the provider id (emulators; Hermes TS extension)', () => {
    expect(anthropicPlatform('http://127.0.0.1:9999', 'anthropic')).toBe('direct');
    expect(anthropicPlatform('http://127.0.0.1:9999', 'bedrock')).toBe('bedrock');
    expect(anthropicPlatform('http://127.0.0.1:9999', 'minimax')).toBe('compatible');
    expect(
      classifyAnthropicRoute({ baseUrl: 'http://127.0.0.1:9', model: 'claude-opus-4-8', provider: 'anthropic' }),
    ).toBe('native');
    expect(
      classifyAnthropicRoute({ baseUrl: 'https://relay.example.com', model: 'claude-opus-4-8', provider: 'anthropic' }),
    ).toBe('third_party');
  });

  it('endpoint classes for origin scoping (SPEC §23.2)', () => {
    expect(anthropicEndpointClass('api.anthropic.com')).toBe('direct');
    expect(anthropicEndpointClass('')).toBe('direct');
    expect(anthropicEndpointClass('bedrock-runtime.eu-west-1.amazonaws.com')).toBe('bedrock');
    expect(anthropicEndpointClass('us-east5-aiplatform.googleapis.com')).toBe('vertex');
    expect(anthropicEndpointClass('res.services.ai.azure.com')).toBe('foundry');
    expect(anthropicEndpointClass('api.minimax.io')).toBe('host:api.minimax.io');
  });

  it('thinking scope per treatment', () => {
    expect(anthropicThinkingScope('native', 'claude-opus-4-8')).toBe('all');
    expect(anthropicThinkingScope('native', 'claude-sonnet-4-5')).toBe('loop');
    expect(anthropicThinkingScope('minimax', 'MiniMax-M2')).toBe('all');
    expect(anthropicThinkingScope('kimi', 'kimi-k2')).toBe('all');
    expect(anthropicThinkingScope('deepseek', 'deepseek-reasoner')).toBe('loop');
    expect(anthropicThinkingScope('third_party', 'claude-opus-4-8')).toBe('none');
  });
});
