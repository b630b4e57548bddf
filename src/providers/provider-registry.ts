import { UsageError } from '../core/errors.js';
import type { JsonObject } from '../core/json.js';
import type { WireApi } from '../core/origin.js';
import type { ReasoningOptions } from '../core/reasoning-options.js';
import { providerModels } from './provider-models.js';
import { vllmThinkingSwitch } from '../replay/replay-model-ids.js';
import {
  chatEffortVocabulary,
  EFFORT_OFF,
  type EffortVocabulary,
  type EffortWireValue,
  OPENROUTER_EFFORT,
  THINKING_SWITCH,
} from './provider-effort.js';

/**
 * OpenAI-compatible vendors are table entries, not copies of a transport (STYLE rule 3 (docs/architecture.md)):
 * provider id, default base URL, API-key environment variable, default wire API and how the
 * request body enables reasoning (WIRE.md §1). Route facts (which carriers a route reads) live
 * in `replay/`, keyed by the same ids.
 */

/** One provider. */
export interface ProviderInfo {
  id: string;
  /** Default base URL; undefined when the user must give one (`custom`). */
  baseUrl: string | undefined;
  /** Environment variable holding the API key; undefined for local servers that need none. */
  apiKeyEnv: string | undefined;
  /** Default wire API. */
  api: WireApi;
  /** Body additions that enable reasoning for `model` (empty when reasoning is off or undocumented). */
  reasoningRequest(model: string, reasoning: ReasoningOptions): JsonObject;
  /** Provider profile `native_reasoning_details_type` (SPEC §5 post-step, §7.6). */
  nativeReasoningDetailsType?: string;
  /** The model used when none is configured (`provider-models.ts`); undefined for `custom`. */
  defaultModel: string | undefined;
}

/** Google's namespaced native carrier type in `reasoning_details` (SPEC §24.11). */
export const GOOGLE_NATIVE_ASSISTANT_TYPE = 'google.native_assistant';

const NONE = (): JsonObject => ({});

/** The vocabulary's word for the turn's effort, or undefined when none is asked (src/providers/provider-effort.ts). */
function effortWord(vocabulary: EffortVocabulary, reasoning: ReasoningOptions): EffortWireValue | undefined {
  return reasoning.effort === undefined ? undefined : vocabulary.values[reasoning.effort];
}

/** `reasoning_effort` when an effort is asked for (OpenAI, xAI, Gemini-compat, Cerebras, Ollama; WIRE.md §1). */
function effortFlag(providerId: string) {
  return (model: string, reasoning: ReasoningOptions): JsonObject => {
    const vocabulary = chatEffortVocabulary(providerId, model);
    if (!reasoning.enabled || vocabulary === undefined) return {};
    const value = effortWord(vocabulary, reasoning);
    return value === undefined || value === EFFORT_OFF ? {} : { reasoning_effort: value };
  };
}

/** OpenRouter `reasoning: {effort | max_tokens | enabled}` (WIRE.md §1.7). */
function openRouterReasoning(_model: string, reasoning: ReasoningOptions): JsonObject {
  if (!reasoning.enabled) return {};
  const effort = effortWord(OPENROUTER_EFFORT, reasoning);
  if (effort !== undefined) return { reasoning: { effort } };
  if (reasoning.budgetTokens !== undefined) return { reasoning: { max_tokens: reasoning.budgetTokens } };
  return { reasoning: { enabled: true } };
}

/**
 * `thinking: {type}` plus, where the model has levels, `reasoning_effort` (DeepSeek WIRE.md §1.2,
 * Kimi K3 §1.3; Kimi K2.x and Z.AI GLM take the switch only, §1.3, §1.5). Effort `none` is
 * `thinking: {type: "disabled"}`.
 */
function thinkingSwitchReasoning(providerId: string) {
  return (model: string, reasoning: ReasoningOptions): JsonObject => {
    if (!reasoning.enabled) return {};
    const vocabulary = chatEffortVocabulary(providerId, model) ?? THINKING_SWITCH;
    const value = effortWord(vocabulary, reasoning);
    if (value === EFFORT_OFF) return { thinking: { type: 'disabled' } };
    const body: JsonObject = { thinking: { type: 'enabled' } };
    if (value !== undefined && vocabulary.parameter === 'reasoning_effort') body['reasoning_effort'] = value;
    return body;
  };
}

/** DashScope `enable_thinking` (+ `thinking_budget`), WIRE.md §1.4. */
function dashScopeReasoning(_model: string, reasoning: ReasoningOptions): JsonObject {
  if (!reasoning.enabled) return {};
  if (reasoning.effort === 'none') return { enable_thinking: false };
  const body: JsonObject = { enable_thinking: true };
  if (reasoning.budgetTokens !== undefined) body['thinking_budget'] = reasoning.budgetTokens;
  return body;
}

/** vLLM: per-model chat-template switch (`enable_thinking` for Qwen3, `thinking` for DeepSeek-V3.1/Granite/Kimi), WIRE.md §1.6. */
function vllmReasoning(model: string, reasoning: ReasoningOptions): JsonObject {
  if (!reasoning.enabled) return {};
  const key = vllmThinkingSwitch(model);
  return key === null ? {} : { chat_template_kwargs: { [key]: true } };
}

/** Groq returns parsed `message.reasoning` only with `reasoning_format: "parsed"` (WIRE.md §1.1). */
function groqReasoning(_model: string, reasoning: ReasoningOptions): JsonObject {
  return reasoning.enabled ? { reasoning_format: 'parsed' } : {};
}

function provider(
  id: string,
  baseUrl: string | undefined,
  apiKeyEnv: string | undefined,
  reasoningRequest: ProviderInfo['reasoningRequest'] = NONE,
  extra: Partial<Pick<ProviderInfo, 'nativeReasoningDetailsType' | 'api'>> = {},
): ProviderInfo {
  const defaultModel = providerModels(id)?.defaultModel;
  return { id, baseUrl, apiKeyEnv, api: extra.api ?? 'chat_completions', reasoningRequest, defaultModel, ...extra };
}

/** Every known provider (SPEC §4, §5, §8 ids plus the common OpenAI-compatible vendors). */
export const PROVIDERS: readonly ProviderInfo[] = [
  provider('openai', 'https://api.openai.com/v1', 'OPENAI_API_KEY', effortFlag('openai')),
  provider('openrouter', 'https://openrouter.ai/api/v1', 'OPENROUTER_API_KEY', openRouterReasoning),
  provider('deepseek', 'https://api.deepseek.com', 'DEEPSEEK_API_KEY', thinkingSwitchReasoning('deepseek')),
  provider('kimi', 'https://api.moonshot.ai/v1', 'MOONSHOT_API_KEY', thinkingSwitchReasoning('kimi')),
  provider('moonshot', 'https://api.moonshot.ai/v1', 'MOONSHOT_API_KEY', thinkingSwitchReasoning('moonshot')),
  provider('kimi-coding', 'https://api.kimi.com/coding/v1', 'KIMI_API_KEY', thinkingSwitchReasoning('kimi-coding')),
  provider('kimi-coding-cn', 'https://api.moonshot.cn/v1', 'KIMI_API_KEY', thinkingSwitchReasoning('kimi-coding-cn')),
  provider('zai', 'https://api.z.ai/api/paas/v4', 'ZAI_API_KEY', thinkingSwitchReasoning('zai')),
  provider(
    'dashscope',
    'https://dashscope-intl.aliyuncs.com/compatible-mode/v1',
    'DASHSCOPE_API_KEY',
    dashScopeReasoning,
  ),
  provider('xiaomi', 'https://api.xiaomimimo.com/v1', 'XIAOMI_API_KEY'),
  provider('gemini', 'https://generativelanguage.googleapis.com/v1beta/openai', 'GEMINI_API_KEY', effortFlag('gemini')),
  provider('copilot', 'https://api.githubcopilot.com', 'GITHUB_COPILOT_TOKEN'),
  provider('ollama', 'http://localhost:11434/v1', undefined, effortFlag('ollama')),
  provider('ollama-cloud', 'https://ollama.com/v1', 'OLLAMA_API_KEY', effortFlag('ollama-cloud')),
  provider('lmstudio', 'http://localhost:1234/v1', undefined),
  provider('vllm', 'http://localhost:8000/v1', undefined, vllmReasoning),
  provider('llamacpp', 'http://localhost:8080/v1', undefined),
  provider('together', 'https://api.together.xyz/v1', 'TOGETHER_API_KEY'),
  provider('xai', 'https://api.x.ai/v1', 'XAI_API_KEY', effortFlag('xai')),
  provider('custom', undefined, undefined),
  provider('mistral', 'https://api.mistral.ai/v1', 'MISTRAL_API_KEY'),
  provider('groq', 'https://api.groq.com/openai/v1', 'GROQ_API_KEY', groqReasoning),
  provider('cerebras', 'https://api.cerebras.ai/v1', 'CEREBRAS_API_KEY', effortFlag('cerebras')),
  provider('fireworks', 'https://api.fireworks.ai/inference/v1', 'FIREWORKS_API_KEY'),
  provider('sambanova', 'https://api.sambanova.ai/v1', 'SAMBANOVA_API_KEY'),
  provider('novita', 'https://api.novita.ai/v3/openai', 'NOVITA_API_KEY'),
  provider('minimax', 'https://api.minimax.io/v1', 'MINIMAX_API_KEY'),
  provider('minimax-cn', 'https://api.minimaxi.com/v1', 'MINIMAX_API_KEY'),
  provider('nous', 'https://inference-api.nousresearch.com/v1', 'NOUS_API_KEY'),
  provider('kilocode', 'https://api.kilo.ai/api/openrouter', 'KILOCODE_API_KEY'),
  provider('ai-gateway', 'https://ai-gateway.vercel.sh/v1', 'AI_GATEWAY_API_KEY'),
  provider('tencent-tokenhub', 'https://tokenhub.tencentmaas.com/v1', 'TENCENT_TOKENHUB_API_KEY'),
  provider('upstage', 'https://api.upstage.ai/v1', 'UPSTAGE_API_KEY'),
  // Google Gemini through Code Assist OAuth. Its client keeps Google's private replay data in
  // `reasoning_details` as `google.native_assistant` entries, which travel back to this provider
  // only (SPEC §24.11). Code Assist speaks its own request format, so Hermes reaches it through a
  // chat-completions relay the user names with --base-url (no default URL, OAuth instead of a key).
  provider('gemini-oauth', undefined, undefined, NONE, { nativeReasoningDetailsType: GOOGLE_NATIVE_ASSISTANT_TYPE }),
  // Native (non-chat-completions) wire APIs: the transport of each builds its own request body.
  provider('anthropic', 'https://api.anthropic.com', 'ANTHROPIC_API_KEY', NONE, { api: 'anthropic_messages' }),
  // Bedrock and Vertex authenticate with the AWS credential chain / Google ADC (no key variable).
  provider('bedrock', undefined, undefined, NONE, { api: 'bedrock_converse' }),
  provider('vertex', undefined, undefined, NONE, { api: 'anthropic_messages' }),
  provider('foundry', undefined, 'AZURE_API_KEY', NONE, { api: 'anthropic_messages' }),
  provider('google', 'https://generativelanguage.googleapis.com/v1beta', 'GEMINI_API_KEY', NONE, { api: 'gemini' }),
  provider('google-vertex', undefined, undefined, NONE, { api: 'gemini' }),
  provider('openai-responses', 'https://api.openai.com/v1', 'OPENAI_API_KEY', NONE, { api: 'codex_responses' }),
];

const BY_ID = new Map(PROVIDERS.map((info) => [info.id, info]));

/** The provider with this id (trimmed, lower-cased), or undefined. */
export function getProvider(id: string): ProviderInfo | undefined {
  return BY_ID.get(id.trim().toLowerCase());
}

/**
 * The provider for a route. An unknown id with a base URL behaves as `custom` (an
 * OpenAI-compatible server the table does not know; the route itself keeps the user's id for
 * route matching and verdict keys). An unknown id without one is a usage error naming the known ids.
 */
export function resolveProvider(id: string, baseUrl?: string): ProviderInfo {
  const known = getProvider(id);
  if (known) return known;
  if (baseUrl !== undefined && baseUrl.trim() !== '') return BY_ID.get('custom') as ProviderInfo;
  throw new UsageError(
    `unknown provider "${id}"; pass --base-url for an OpenAI-compatible server, or use one of: ${PROVIDERS.map((info) => info.id).join(', ')}`,
  );
}

/** The API key of a provider from `environment` (its key variable, docs/providers.md); undefined when it has none or it is unset. */
export function providerApiKey(
  providerId: string,
  environment: Readonly<Record<string, string | undefined>>,
): string | undefined {
  const variable = getProvider(providerId)?.apiKeyEnv;
  return variable === undefined ? undefined : environment[variable];
}
