/**
 * Known models per provider: the default model (so `--provider ID` alone works) and the models
 * `hermes model` lists. A model id that is not listed is still accepted: providers add models
 * faster than any table, so this list only suggests.
 */

/** Prices in US dollars per million tokens, as published on the vendor's pricing page. */
export interface ModelPrice {
  input: number;
  output: number;
  /** Cached input tokens (cache reads), when the vendor prices them apart. */
  cachedInput?: number;
}

/** The default model and the known models of one provider. */
export interface ProviderModels {
  defaultModel: string;
  models: readonly string[];
}

const CLAUDE = ['claude-opus-4-8', 'claude-sonnet-4-5', 'claude-opus-4-1', 'claude-haiku-4-5'];
const GEMINI = ['gemini-3-pro-preview', 'gemini-2.5-pro', 'gemini-2.5-flash'];

/**
 * Provider id → models. `custom` has no entry: it is an OpenAI-compatible server the table does
 * not know, so only the user can name its model. A provider's default model is the one its
 * emulator persona answers as (`cli-emulator-route.ts`, docs/emulators.md), so the docs, the
 * emulators and `hermes model` name the same models.
 */
const MODELS: Readonly<Record<string, ProviderModels>> = {
  openai: { defaultModel: 'gpt-5', models: ['gpt-5', 'gpt-5-mini', 'gpt-5-nano', 'o4-mini'] },
  'openai-responses': {
    defaultModel: 'gpt-5.4',
    models: ['gpt-5.4', 'gpt-5', 'gpt-5-mini', 'gpt-5-codex', 'o4-mini'],
  },
  openrouter: {
    defaultModel: 'anthropic/claude-sonnet-4.5',
    models: ['anthropic/claude-sonnet-4.5', 'openai/gpt-5', 'deepseek/deepseek-v3.2', 'moonshotai/kimi-k2-thinking'],
  },
  deepseek: {
    defaultModel: 'deepseek-v4-flash',
    models: ['deepseek-v4-flash', 'deepseek-v4-pro', 'deepseek-reasoner', 'deepseek-chat'],
  },
  kimi: { defaultModel: 'kimi-k2-thinking', models: ['kimi-k2-thinking', 'kimi-k2-0905-preview'] },
  moonshot: { defaultModel: 'kimi-k2-thinking', models: ['kimi-k2-thinking', 'kimi-k2-0905-preview'] },
  'kimi-coding': { defaultModel: 'kimi-for-coding', models: ['kimi-for-coding'] },
  'kimi-coding-cn': { defaultModel: 'kimi-k2-thinking', models: ['kimi-k2-thinking'] },
  zai: { defaultModel: 'glm-4.6', models: ['glm-4.6', 'glm-4.5', 'glm-4.5-air'] },
  dashscope: { defaultModel: 'qwen3-max', models: ['qwen3-max', 'qwen-plus', 'qwen3-coder-plus'] },
  xiaomi: { defaultModel: 'mimo-v2-flash', models: ['mimo-v2-flash'] },
  gemini: { defaultModel: 'gemini-3-pro-preview', models: GEMINI },
  google: { defaultModel: 'gemini-3-pro-preview', models: GEMINI },
  'gemini-oauth': { defaultModel: 'gemini-3-pro-preview', models: GEMINI },
  'google-vertex': { defaultModel: 'gemini-3-pro-preview', models: GEMINI },
  copilot: { defaultModel: 'claude-sonnet-4.5', models: ['claude-sonnet-4.5', 'gpt-5'] },
  ollama: { defaultModel: 'qwen3', models: ['qwen3', 'gpt-oss:20b', 'deepseek-r1'] },
  'ollama-cloud': { defaultModel: 'gpt-oss:120b', models: ['gpt-oss:120b', 'deepseek-v3.1:671b'] },
  lmstudio: { defaultModel: 'qwen/qwen3-8b', models: ['qwen/qwen3-8b', 'openai/gpt-oss-20b'] },
  vllm: { defaultModel: 'Qwen/Qwen3-8B', models: ['Qwen/Qwen3-8B'] },
  // llama-server answers with whatever model it loaded, whatever the request names.
  llamacpp: { defaultModel: 'default', models: ['default'] },
  together: { defaultModel: 'deepseek-ai/DeepSeek-R1', models: ['deepseek-ai/DeepSeek-R1', 'Qwen/Qwen3-235B-A22B'] },
  xai: { defaultModel: 'grok-4', models: ['grok-4', 'grok-3-mini'] },
  mistral: { defaultModel: 'magistral-medium-latest', models: ['magistral-medium-latest', 'magistral-small-latest'] },
  groq: { defaultModel: 'openai/gpt-oss-120b', models: ['openai/gpt-oss-120b', 'qwen/qwen3-32b'] },
  cerebras: { defaultModel: 'gpt-oss-120b', models: ['gpt-oss-120b', 'qwen-3-32b'] },
  fireworks: {
    defaultModel: 'accounts/fireworks/models/deepseek-v3p1',
    models: ['accounts/fireworks/models/deepseek-v3p1', 'accounts/fireworks/models/kimi-k2-instruct'],
  },
  sambanova: { defaultModel: 'DeepSeek-R1', models: ['DeepSeek-R1', 'Qwen3-32B'] },
  novita: { defaultModel: 'deepseek/deepseek-r1', models: ['deepseek/deepseek-r1'] },
  minimax: { defaultModel: 'MiniMax-M3', models: ['MiniMax-M3', 'MiniMax-M2'] },
  'minimax-cn': { defaultModel: 'MiniMax-M3', models: ['MiniMax-M3', 'MiniMax-M2'] },
  nous: { defaultModel: 'Hermes-4-405B', models: ['Hermes-4-405B', 'Hermes-4-70B'] },
  kilocode: { defaultModel: 'anthropic/claude-sonnet-4.5', models: ['anthropic/claude-sonnet-4.5'] },
  'ai-gateway': {
    defaultModel: 'anthropic/claude-sonnet-4.5',
    models: ['anthropic/claude-sonnet-4.5', 'openai/gpt-5'],
  },
  'tencent-tokenhub': { defaultModel: 'hunyuan-t1', models: ['hunyuan-t1'] },
  upstage: { defaultModel: 'solar-pro2', models: ['solar-pro2'] },
  anthropic: { defaultModel: 'claude-opus-4-8', models: CLAUDE },
  foundry: { defaultModel: 'claude-sonnet-4-5', models: CLAUDE },
  vertex: { defaultModel: 'claude-sonnet-4-5@20250929', models: ['claude-sonnet-4-5@20250929'] },
  bedrock: {
    defaultModel: 'us.anthropic.claude-sonnet-4-5-20250929-v1:0',
    models: ['us.anthropic.claude-sonnet-4-5-20250929-v1:0', 'us.deepseek.r1-v1:0'],
  },
};

/**
 * List prices per million tokens for the models whose vendors publish them in a stable form
 * (api-docs.deepseek.com/quick_start/pricing, anthropic.com/pricing, openai.com/api/pricing).
 * A model missing here gets no cost on the usage line; a wrong guess would be worse than none.
 */
const PRICES: Readonly<Record<string, ModelPrice>> = {
  'deepseek-chat': { input: 0.28, output: 0.42, cachedInput: 0.028 },
  'deepseek-reasoner': { input: 0.28, output: 0.42, cachedInput: 0.028 },
  'claude-sonnet-4-5': { input: 3, output: 15, cachedInput: 0.3 },
  'claude-haiku-4-5': { input: 1, output: 5, cachedInput: 0.1 },
  'claude-opus-4-1': { input: 15, output: 75, cachedInput: 1.5 },
  'gpt-5': { input: 1.25, output: 10, cachedInput: 0.125 },
  'gpt-5-mini': { input: 0.25, output: 2, cachedInput: 0.025 },
  'gpt-5-nano': { input: 0.05, output: 0.4, cachedInput: 0.005 },
};

/** The models of a provider id, or undefined (`custom`, unknown ids). */
export function providerModels(providerId: string): ProviderModels | undefined {
  return MODELS[providerId.trim().toLowerCase()];
}

/** The price of a model on a provider that bills at the vendor's list price, or undefined. */
export function modelPrice(providerId: string, model: string): ModelPrice | undefined {
  // Resellers (OpenRouter, gateways, clouds) bill their own prices: only first-party ids count.
  const firstParty = ['deepseek', 'anthropic', 'openai', 'openai-responses'];
  if (!firstParty.includes(providerId.trim().toLowerCase())) return undefined;
  return PRICES[model];
}

/** Cost in US dollars of the given token counts, or undefined when the price is unknown. */
export function usageCost(
  price: ModelPrice | undefined,
  tokens: { input: number; output: number; cachedInput: number },
): number | undefined {
  if (!price) return undefined;
  const cached = Math.min(tokens.cachedInput, tokens.input);
  const cachedRate = price.cachedInput ?? price.input;
  return ((tokens.input - cached) * price.input + cached * cachedRate + tokens.output * price.output) / 1_000_000;
}
