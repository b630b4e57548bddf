import type { JsonObject } from '../core/json.js';
import { isJsonObject } from '../core/json.js';
import type { Route } from '../core/route.js';
import { hostnameMatches, hostnameOf, isLocalEndpoint } from './replay-host.js';
import { isQwenModel, isThinkingGlm, keepsAllKimiThinking } from './replay-model-ids.js';
import { matchRouteOverride } from './replay-route-override.js';
import type { RouteOverride } from './replay-types.js';

/**
 * Keep-thinking request flags (SPEC §8 [RN], WIRE.md §1.3–§1.5): for providers that otherwise
 * discard prior-turn thinking server-side, a request flag makes replayed reasoning count. The
 * prior art's gating code was not found (SPEC §22.1); decided here:
 * - only when reasoning is enabled for the turn;
 * - GLM (glm-4.5 and later) on Z.AI / Zhipu routes: `thinking: {type: "enabled", clear_thinking: false}`
 *   (`clear_thinking` is nested under `thinking`, fixture zai/pydantic-preserved-thinking-round-trip);
 * - Kimi models on Moonshot / Kimi routes: `thinking: {type: "enabled", keep: "all"}` (`keep` lives
 *   inside `thinking`), except kimi-k2.5, which answers 400 to it (WIRE.md §1.3);
 * - Qwen models on DashScope hosts: top-level `preserve_thinking: true` (placement on the hosted API
 *   is unconfirmed, WIRE.md §7); on local servers the Qwen3.6 chat-template variable
 *   `chat_template_kwargs: {preserve_thinking: true}`;
 * - a matching user route row's `keepThinking` (SPEC §23.4) is merged last.
 */

const ZAI_PROVIDERS = ['zai', 'zhipu', 'glm'];
const ZAI_HOSTS = ['z.ai', 'bigmodel.cn'];
const KIMI_PROVIDERS = ['kimi', 'moonshot', 'kimi-coding', 'kimi-coding-cn'];
const KIMI_HOSTS = ['moonshot.ai', 'moonshot.cn', 'api.kimi.com'];
const DASHSCOPE_PROVIDERS = ['dashscope', 'qwen', 'alibaba'];
const DASHSCOPE_HOSTS = ['dashscope.aliyuncs.com', 'dashscope-intl.aliyuncs.com', 'dashscope-us.aliyuncs.com'];

function routeIs(providerId: string, host: string, providers: readonly string[], hosts: readonly string[]): boolean {
  return providers.includes(providerId) || hosts.some((domain) => hostnameMatches(host, domain));
}

/** The keep-thinking additions for a chat-completions request body (SPEC §8). */
export function keepThinkingFlags(
  route: Route,
  reasoningEnabled: boolean,
  overrides?: readonly RouteOverride[],
): JsonObject {
  if (!reasoningEnabled) return {};
  const providerId = route.provider.trim().toLowerCase();
  const host = hostnameOf(route.baseUrl);
  const model = route.model;
  let flags: JsonObject = {};
  if (routeIs(providerId, host, ZAI_PROVIDERS, ZAI_HOSTS) && isThinkingGlm(model)) {
    flags = { thinking: { type: 'enabled', clear_thinking: false } };
  } else if (routeIs(providerId, host, KIMI_PROVIDERS, KIMI_HOSTS) && keepsAllKimiThinking(model)) {
    flags = { thinking: { type: 'enabled', keep: 'all' } };
  } else if (isQwenModel(model)) {
    if (routeIs(providerId, host, DASHSCOPE_PROVIDERS, DASHSCOPE_HOSTS)) flags = { preserve_thinking: true };
    else if (isLocalEndpoint(route.baseUrl)) flags = { chat_template_kwargs: { preserve_thinking: true } };
  }
  const override = matchRouteOverride(overrides, route.provider, route.baseUrl);
  if (override?.keepThinking) flags = mergeRequestFlags(flags, override.keepThinking);
  return flags;
}

/**
 * Merges request-body additions: objects present on both sides are merged one level deep, so
 * `thinking: {type}` from the provider and `thinking: {keep}` from keep-thinking become one
 * `thinking` object. Later values win. Neither input is mutated.
 */
export function mergeRequestFlags(base: JsonObject, addition: JsonObject): JsonObject {
  const merged: JsonObject = { ...base };
  for (const key of Object.keys(addition)) {
    const value = addition[key];
    const existing = merged[key];
    merged[key] = isJsonObject(existing) && isJsonObject(value) ? { ...existing, ...value } : value;
  }
  return merged;
}
