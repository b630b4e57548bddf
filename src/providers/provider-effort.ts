import type { ReasoningEffort } from '../core/reasoning-options.js';
import type { Route } from '../core/route.js';
import { isKimiK3 } from '../replay/replay-model-ids.js';
import type { RouteProfile } from '../replay/replay-route-profile.js';

/**
 * The effort table (STYLE rule 2: policy is data plus one resolver): what each wire API and
 * provider receives for each Hermes effort level (`none minimal low medium high xhigh max`).
 * Encoders and provider request flags read their vocabulary from here, and the runtime's
 * effort recovery (a 4xx rejecting a value) reads the same table to know which levels share the
 * value that was refused, so what is learned and what is sent never disagree.
 */

/** The explicit off switch of an API (`thinking: {type: "disabled"}`, `enable_thinking: false`). */
export const EFFORT_OFF = 'off';

/** What one level becomes on the wire: a word, a token budget, or {@link EFFORT_OFF}. */
export type EffortWireValue = string | number;

/** How one wire API or provider expresses effort. */
export interface EffortVocabulary {
  /** Short name (logs, tests, `hermes routes verdicts`). */
  name: string;
  /** The request field the value goes in, as providers name it in their errors. */
  parameter: string;
  /** The value sent for each level. */
  values: Readonly<Record<ReasoningEffort, EffortWireValue>>;
}

function vocabulary(
  name: string,
  parameter: string,
  values: Readonly<Record<ReasoningEffort, EffortWireValue>>,
): EffortVocabulary {
  return Object.freeze({ name, parameter, values: Object.freeze(values) });
}

const SAME_WORDS = {
  none: 'none',
  minimal: 'minimal',
  low: 'low',
  medium: 'medium',
  high: 'high',
  xhigh: 'xhigh',
  max: 'max',
} as const;

/**
 * OpenAI chat `reasoning_effort`: `none minimal low medium high xhigh max`, support varies per
 * model (openai@6.49.0 `shared.ReasoningEffort`); a model's refusal is learned (SPEC §13-style).
 */
export const OPENAI_EFFORT = vocabulary('openai', 'reasoning_effort', SAME_WORDS);

/** Responses `reasoning.effort`: the same `ReasoningEffort` vocabulary (openai@6.49.0 `shared.Reasoning`). */
export const RESPONSES_EFFORT = vocabulary('responses', 'reasoning.effort', SAME_WORDS);

/**
 * OpenRouter `reasoning.effort`: `xhigh high medium low minimal none` (openrouter.ai docs,
 * "Reasoning Tokens"; WIRE.md §1.7); `max` is its top level, `xhigh`.
 */
export const OPENROUTER_EFFORT = vocabulary('openrouter', 'reasoning.effort', { ...SAME_WORDS, max: 'xhigh' });

/**
 * DeepSeek `reasoning_effort` `low | high | max` beside `thinking.type` (WIRE.md §1.2, DeepSeek
 * "Thinking Mode Toggle and Effort Control": minimal→low, medium→high); `xhigh` sits above
 * `high`, so `max`; `none` is `thinking: {type: "disabled"}`.
 */
export const DEEPSEEK_EFFORT = vocabulary('deepseek', 'reasoning_effort', {
  none: EFFORT_OFF,
  minimal: 'low',
  low: 'low',
  medium: 'high',
  high: 'high',
  xhigh: 'max',
  max: 'max',
});

/** Kimi K3 `reasoning_effort` `low | high | max` (WIRE.md §1.3); `none` is `thinking.type: "disabled"`. */
export const KIMI_EFFORT = vocabulary('kimi', 'reasoning_effort', { ...DEEPSEEK_EFFORT.values });

/**
 * An on/off switch without levels: Kimi K2.x and Z.AI GLM `thinking.type` (WIRE.md §1.3, §1.5),
 * DashScope `enable_thinking` (WIRE.md §1.4). Every level but `none` is "on".
 */
export const THINKING_SWITCH = vocabulary('thinking-switch', 'thinking.type', {
  none: EFFORT_OFF,
  minimal: 'on',
  low: 'on',
  medium: 'on',
  high: 'on',
  xhigh: 'on',
  max: 'on',
});

/**
 * Gemini on its OpenAI-compatible endpoint: `reasoning_effort` `low | medium | high` (mapped by
 * Google to 1K/8K/24K thinking tokens) and `none` to turn thinking off
 * (ai.google.dev/gemini-api/docs/openai, WIRE.md §1.9).
 */
export const GEMINI_OPENAI_EFFORT = vocabulary('gemini-openai', 'reasoning_effort', {
  none: 'none',
  minimal: 'low',
  low: 'low',
  medium: 'medium',
  high: 'high',
  xhigh: 'high',
  max: 'high',
});

/** `reasoning_effort` `low | medium | high` (Cerebras, Ollama; WIRE.md §1 matrix); `none` sends nothing. */
export const THREE_LEVEL_EFFORT = vocabulary('three-level', 'reasoning_effort', {
  none: EFFORT_OFF,
  minimal: 'low',
  low: 'low',
  medium: 'medium',
  high: 'high',
  xhigh: 'high',
  max: 'high',
});

/** xAI `reasoning_effort` `low | high` (grok-3-mini); `none` sends nothing. */
export const XAI_EFFORT = vocabulary('xai', 'reasoning_effort', {
  none: EFFORT_OFF,
  minimal: 'low',
  low: 'low',
  medium: 'high',
  high: 'high',
  xhigh: 'high',
  max: 'high',
});

/**
 * Anthropic adaptive thinking: `output_config.effort` `low | medium | high | xhigh | max`
 * (@anthropic-ai/sdk 1.16 `OutputConfig.effort`, WIRE.md §2.1); `none` is
 * `thinking: {type: "disabled"}`, which models that always think at high effort refuse (learned).
 */
export const ANTHROPIC_ADAPTIVE_EFFORT = vocabulary('anthropic-adaptive', 'output_config.effort', {
  none: EFFORT_OFF,
  minimal: 'low',
  low: 'low',
  medium: 'medium',
  high: 'high',
  xhigh: 'xhigh',
  max: 'max',
});

/**
 * Anthropic extended thinking `budget_tokens` (N ≥ 1024 and < max_tokens, WIRE.md §2.1; the
 * encoder clamps to the request's max_tokens); `none` sends no thinking.
 */
export const ANTHROPIC_BUDGET_EFFORT = vocabulary('anthropic-budget', 'thinking.budget_tokens', {
  none: EFFORT_OFF,
  minimal: 1024,
  low: 2048,
  medium: 8192,
  high: 12_288,
  xhigh: 16_000,
  max: 32_000,
});

/**
 * Gemini 3 `thinkingLevel` `minimal | low | medium | high` (WIRE.md §4.1, `@google/genai`
 * `ThinkingConfig`); Gemini 3 has no off switch, so `none` is its floor `minimal`.
 */
export const GEMINI_LEVEL_EFFORT = vocabulary('gemini-level', 'thinkingLevel', {
  none: 'minimal',
  minimal: 'minimal',
  low: 'low',
  medium: 'medium',
  high: 'high',
  xhigh: 'high',
  max: 'high',
});

/**
 * Gemini 2.5 `thinkingBudget` (WIRE.md §4.1): 0 turns thinking off (Flash; Pro refuses it, which
 * is learned), 128 is 2.5 Pro's floor, 24576 Flash's ceiling, 32768 Pro's.
 */
export const GEMINI_BUDGET_EFFORT = vocabulary('gemini-budget', 'thinkingBudget', {
  none: 0,
  minimal: 128,
  low: 1024,
  medium: 8192,
  high: 24_576,
  xhigh: 32_768,
  max: 32_768,
});

/** Bedrock gpt-oss `reasoning_effort` `low | medium | high` (WIRE.md §3.1, fixture `pydantic-thinking-high-openai-variant`). */
export const GPT_OSS_EFFORT = vocabulary('gpt-oss', 'reasoning_effort', { ...THREE_LEVEL_EFFORT.values });

/** Bedrock Qwen3 `reasoning_config` `low | high` (WIRE.md §3.1, fixture `pydantic-thinking-high-qwen-variant`). */
export const QWEN_BEDROCK_EFFORT = vocabulary('qwen-bedrock', 'reasoning_config', { ...XAI_EFFORT.values });

/** Chat-completions providers that take an effort, by provider id (the others ignore `effort`). */
const CHAT_EFFORT_BY_PROVIDER: Readonly<Record<string, (model: string) => EffortVocabulary>> = {
  openai: () => OPENAI_EFFORT,
  openrouter: () => OPENROUTER_EFFORT,
  deepseek: () => DEEPSEEK_EFFORT,
  kimi: (model) => (isKimiK3(model) ? KIMI_EFFORT : THINKING_SWITCH),
  moonshot: (model) => (isKimiK3(model) ? KIMI_EFFORT : THINKING_SWITCH),
  'kimi-coding': (model) => (isKimiK3(model) ? KIMI_EFFORT : THINKING_SWITCH),
  'kimi-coding-cn': (model) => (isKimiK3(model) ? KIMI_EFFORT : THINKING_SWITCH),
  zai: () => THINKING_SWITCH,
  dashscope: () => THINKING_SWITCH,
  gemini: () => GEMINI_OPENAI_EFFORT,
  ollama: () => THREE_LEVEL_EFFORT,
  'ollama-cloud': () => THREE_LEVEL_EFFORT,
  cerebras: () => THREE_LEVEL_EFFORT,
  xai: () => XAI_EFFORT,
};

/** The effort vocabulary of a chat-completions provider for `model`, or undefined when it takes none. */
export function chatEffortVocabulary(providerId: string, model: string): EffortVocabulary | undefined {
  return CHAT_EFFORT_BY_PROVIDER[providerId.trim().toLowerCase()]?.(model);
}

/**
 * The effort vocabulary of a route: per provider on chat-completions, per model facts on the
 * native APIs (Anthropic adaptive or budget thinking, Gemini level or budget, Bedrock request
 * style). Undefined: the route takes no effort (it is not sent).
 */
export function effortVocabularyFor(
  route: Route,
  profile: Pick<RouteProfile, 'anthropic' | 'gemini' | 'bedrock'>,
): EffortVocabulary | undefined {
  switch (route.api) {
    case 'chat_completions':
      return chatEffortVocabulary(route.provider, route.model);
    case 'codex_responses':
      return RESPONSES_EFFORT;
    case 'anthropic_messages':
      if (profile.anthropic.adaptiveOrDisabledThinking) return undefined;
      return profile.anthropic.adaptiveThinking ? ANTHROPIC_ADAPTIVE_EFFORT : ANTHROPIC_BUDGET_EFFORT;
    case 'gemini':
      return profile.gemini.thinkingStyle === 'level' ? GEMINI_LEVEL_EFFORT : GEMINI_BUDGET_EFFORT;
    case 'bedrock_converse': {
      const request = profile.bedrock.request;
      if (request.style === 'reasoning-effort') return GPT_OSS_EFFORT;
      if (request.style === 'reasoning-config') return QWEN_BEDROCK_EFFORT;
      if (request.style === 'anthropic-thinking' && request.mode === 'enabled') return ANTHROPIC_BUDGET_EFFORT;
      return undefined;
    }
  }
}
