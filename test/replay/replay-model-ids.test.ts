import { describe, expect, it } from 'vitest';
import {
  bedrockModelFamily,
  compactsNatively,
  geminiModelFamily,
  isDeepSeekThinkingModel,
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

  const predicates = {
    isKimiModel,
    isDeepSeekThinkingModel,
    isMiniMaxM3,
    isThinkingGlm,
    keepsAllKimiThinking,
    isGeminiOrGemma,
    compactsNatively,
    mentionsDeepSeek: (model: string) => modelMentions(model, ['deepseek']),
  };
  // Relay models read the last path segment, case-insensitively (SPEC §9.2, §24.2); the rest
  // decide chat-completions flags and carrier reads (SPEC §7.4, §8, §24.7).
  it.each<[keyof typeof predicates, string, boolean]>([
    ['isKimiModel', 'moonshotai/Kimi-K2-Thinking', true],
    ['isKimiModel', 'k3', true],
    ['isKimiModel', 'kimchi', false],
    // SPEC §9.2: the reasoner, R1 and V4 families think; chat, coder and V3 do not.
    ['isDeepSeekThinkingModel', 'us.deepseek.r1-v1:0', true],
    ['isDeepSeekThinkingModel', 'deepseek-reasoner', true],
    ['isDeepSeekThinkingModel', 'deepseek-ai/DeepSeek-R1-Distill-Llama-70B', true],
    ['isDeepSeekThinkingModel', 'deepseek-v4-flash', true],
    ['isDeepSeekThinkingModel', 'deepseek-chat', false],
    ['isDeepSeekThinkingModel', 'deepseek-coder', false],
    ['isDeepSeekThinkingModel', 'deepseek-v3.2', false],
    ['isDeepSeekThinkingModel', 'deepseek/x/qwen', false],
    // SPEC §25.2: the exact id only; look-alikes are other models.
    ['isMiniMaxM3', ' minimax-M3', true],
    ['isMiniMaxM3', 'MiniMax-M3-preview', false],
    ['isMiniMaxM3', 'minimax-m3-pro', false],
    ['isMiniMaxM3', 'MiniMax-M2.5', false],
    ['isThinkingGlm', 'GLM-4.5-air', true],
    ['isThinkingGlm', 'glm-5', true],
    ['isThinkingGlm', 'glm-4.1', false],
    ['keepsAllKimiThinking', 'kimi-k2-thinking', true],
    ['keepsAllKimiThinking', 'Kimi-K2.5', false],
    ['isGeminiOrGemma', 'google/Gemma-3-27b', true],
    ['isGeminiOrGemma', 'gpt-5', false],
    ['compactsNatively', 'GPT-5.6-codex', true],
    ['compactsNatively', 'gpt-5.5', false],
    ['mentionsDeepSeek', 'DeepSeek-V4', true],
    ['mentionsDeepSeek', 'gpt-5', false],
  ])('%s(%j) is %s', (name, model, expected) => {
    expect(predicates[name](model)).toBe(expected);
  });
});
