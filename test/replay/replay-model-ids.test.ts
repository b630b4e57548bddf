import { describe, expect, it } from 'vitest';
import {
  bedrockModelFamily,
  compactsNatively,
  geminiModelFamily,
  isDeepSeekModel,
  isGeminiOrGemma,
  isKimiModel,
  isMiniMaxM3,
  isThinkingGlm,
  keepsAllKimiThinking,
  modelMentions,
} from '../../src/replay/replay-model-ids.js';

describe('replay-model-ids: the one module that reads model ids', () => {
  it.each([
    ['us.anthropic.claude-sonnet-4-6', 'claude-adaptive'],
    ['arn:aws:bedrock:us-west-2:1:inference-profile/eu.anthropic.claude-opus-4-5-20251101-v1:0', 'claude'],
    ['anthropic.claude-sonnet-4-20250514-v1:0', 'claude'],
    ['anthropic.claude-fable-5', 'claude-adaptive'],
    ['us.deepseek.r1-v1:0', 'deepseek'],
    ['moonshotai.kimi-k2-thinking', 'kimi'],
    ['qwen.qwen3-32b-v1:0', 'qwen'],
    ['openai.gpt-oss-120b-1:0', 'gpt-oss'],
    ['minimax.minimax-m2', 'minimax'],
    ['amazon.nova-pro-v1:0', null],
  ])('Bedrock %s is family %s (SPEC §10)', (id, family) => {
    expect(bedrockModelFamily(id)).toBe(family);
  });

  it.each([
    ['models/gemini-3-pro-preview', { family: 'gemini-3.0', generation: 3 }],
    ['publishers/google/models/gemini-2.5-flash', { family: 'gemini-2.5', generation: 2 }],
    ['gemini-flash-latest', { family: 'gemini-flash-latest', generation: null }],
    ['gpt-5', { family: null, generation: null }],
  ])('Gemini %s reads as %j (SPEC §11)', (id, facts) => {
    expect(geminiModelFamily(id)).toEqual(facts);
  });

  it('relay model predicates (SPEC §9.2, §24.2) read the last path segment, case-insensitively', () => {
    expect([isKimiModel('moonshotai/Kimi-K2-Thinking'), isKimiModel('k3'), isKimiModel('kimchi')]).toEqual([
      true,
      true,
      false,
    ]);
    expect([isDeepSeekModel('us.deepseek.r1-v1:0'), isDeepSeekModel('deepseek/x/qwen')]).toEqual([true, false]);
    expect([isMiniMaxM3(' MiniMax-M3-preview'), isMiniMaxM3('MiniMax-M2.5')]).toEqual([true, false]);
  });

  it('chat-completions flags and carrier reads (SPEC §7.4, §8, §24.7)', () => {
    expect([isThinkingGlm('GLM-4.5-air'), isThinkingGlm('glm-5'), isThinkingGlm('glm-4.1')]).toEqual([
      true,
      true,
      false,
    ]);
    expect([keepsAllKimiThinking('kimi-k2-thinking'), keepsAllKimiThinking('Kimi-K2.5')]).toEqual([true, false]);
    expect([isGeminiOrGemma('google/Gemma-3-27b'), isGeminiOrGemma('gpt-5')]).toEqual([true, false]);
    expect([compactsNatively('GPT-5.6-codex'), compactsNatively('gpt-5.5')]).toEqual([true, false]);
    expect([modelMentions('DeepSeek-V4', ['deepseek']), modelMentions('gpt-5', ['deepseek'])]).toEqual([true, false]);
  });
});
