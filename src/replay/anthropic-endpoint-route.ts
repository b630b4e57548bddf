/**
 * Anthropic Messages endpoint classification (SPEC §9.2) and the endpoint class used for origin
 * scoping (SPEC §23.2). Pure: the caller passes `NOUS_INFERENCE_BASE_URL` in when it has one.
 */
import {
  acceptsBindingControls,
  checksThinkingPrefix,
  nativeAnthropicPreservesPriorThinking,
  needsInterleavedThinkingBeta,
  supportsAdaptiveThinking,
} from './anthropic-thinking-policy.js';
import { hostnameMatches, hostnameOf, isBedrockRuntimeHost, isLocalHostname, pathOf } from './replay-host.js';
import { isDeepSeekThinkingModel, isKimiModel, isMiniMaxM3 } from './replay-model-ids.js';
import { acceptsOnDemandCompaction } from './anthropic-compaction.js';

/** How a route treats thinking blocks (SPEC §9.2 / §9.3). */
export type AnthropicRouteTreatment = 'kimi' | 'deepseek' | 'native' | 'minimax' | 'third_party';

/** The Claude platform behind an endpoint, which decides URL, auth and body framing. */
export type AnthropicPlatform = 'direct' | 'bedrock' | 'vertex' | 'foundry' | 'compatible';

/** Which prior assistant turns keep their thinking on a route (the SPEC §9.3 matrix). */
export type AnthropicThinkingScope = 'all' | 'loop' | 'none';

/** Inputs of the classification. */
export interface AnthropicEndpointInput {
  baseUrl?: string | undefined;
  model: string;
  /** Provider id; only consulted for local endpoints (see {@link anthropicPlatform}). */
  provider?: string | undefined;
  /** Value of `NOUS_INFERENCE_BASE_URL`, when set. */
  nousInferenceBaseUrl?: string | undefined;
}

/** Vertex AI hosts are regional with a dash: `us-east5-aiplatform.googleapis.com`, or global `aiplatform.googleapis.com`. */
function isVertexHost(host: string): boolean {
  return host === 'aiplatform.googleapis.com' || /[.-]aiplatform\.googleapis\.com$/.test(host);
}

const NOUS_INFERENCE_HOST = 'inference-api.nousresearch.com';
/** Provider ids that name a Claude platform; honoured only for local endpoints (emulators, proxies). */
const PLATFORM_PROVIDERS: Readonly<Record<string, AnthropicPlatform>> = {
  anthropic: 'direct',
  bedrock: 'bedrock',
  'amazon-bedrock': 'bedrock',
  vertex: 'vertex',
  'google-vertex': 'vertex',
  foundry: 'foundry',
  'azure-foundry': 'foundry',
};

/**
 * The platform behind an endpoint. Hosts decide; the provider id decides only for a local
 * endpoint (SPEC §3.2), which is how a loopback emulator or a local proxy stands in for Anthropic
 * or Bedrock. This is a Hermes TS extension: the prior art has no local Claude platform.
 */
export function anthropicPlatform(baseUrl: string | undefined, provider?: string): AnthropicPlatform {
  const host = hostnameOf(baseUrl);
  if (host === '' || hostnameMatches(host, 'anthropic.com')) return 'direct';
  if (isBedrockRuntimeHost(host)) return 'bedrock';
  if (isVertexHost(host)) return 'vertex';
  if (hostnameMatches(host, 'services.ai.azure.com') && pathOf(baseUrl).includes('/anthropic')) return 'foundry';
  if (isLocalHostname(host)) return PLATFORM_PROVIDERS[(provider ?? '').trim().toLowerCase()] ?? 'compatible';
  return 'compatible';
}

function isNativeByUrl(input: AnthropicEndpointInput): boolean {
  const host = hostnameOf(input.baseUrl);
  if (host === '' || hostnameMatches(host, 'anthropic.com') || host === NOUS_INFERENCE_HOST) return true;
  const nousHost = hostnameOf(input.nousInferenceBaseUrl);
  return nousHost !== '' && host === nousHost;
}

/** SPEC §9.2, first match wins. */
export function classifyAnthropicRoute(input: AnthropicEndpointInput): AnthropicRouteTreatment {
  const baseUrl = (input.baseUrl ?? '').trim();
  const host = hostnameOf(baseUrl);
  if (
    baseUrl.toLowerCase().startsWith('https://api.kimi.com/coding') ||
    host === 'api.kimi.com' ||
    hostnameMatches(host, 'moonshot.ai') ||
    hostnameMatches(host, 'moonshot.cn') ||
    isKimiModel(input.model)
  ) {
    return 'kimi';
  }
  const nativeByUrl = isNativeByUrl(input);
  if (
    (host === 'api.deepseek.com' && baseUrl.includes('/anthropic')) ||
    (!nativeByUrl && isDeepSeekThinkingModel(input.model))
  ) {
    return 'deepseek';
  }
  if (nativeByUrl || anthropicPlatform(baseUrl === '' ? undefined : baseUrl, input.provider) !== 'compatible') {
    return 'native';
  }
  const lowered = baseUrl.toLowerCase();
  if (
    lowered.startsWith('https://api.minimax.io/anthropic') ||
    lowered.startsWith('https://api.minimaxi.com/anthropic')
  ) {
    return 'minimax';
  }
  return 'third_party';
}

/** Signed-replay routes: signatures and redacted data are verified there (SPEC §9.2). */
export function isSignedReplayRoute(treatment: AnthropicRouteTreatment): boolean {
  return treatment === 'native' || treatment === 'minimax';
}

/**
 * Which prior assistant turns keep their thinking (SPEC §9.3): `native` follows the model policy
 * (all turns, or only the in-flight tool loop); `minimax` and `kimi` keep all; DeepSeek keeps the
 * loop's readable thinking unsigned (its tool loop needs the reasoning back, WIRE.md §1.2);
 * `third_party` keeps none.
 */
export function anthropicThinkingScope(treatment: AnthropicRouteTreatment, model: string): AnthropicThinkingScope {
  if (treatment === 'native') return nativeAnthropicPreservesPriorThinking(model) ? 'all' : 'loop';
  if (treatment === 'minimax' || treatment === 'kimi') return 'all';
  if (treatment === 'deepseek') return 'loop';
  return 'none';
}

/**
 * The endpoint class of an issuer for origin scoping (SPEC §23.2): `direct`, `bedrock`, `vertex`,
 * `foundry`, or `host:<hostname>` for any other (third-party) host. A signature goes back only when
 * the message's origin class equals the route's class and the model is identical.
 */
export function anthropicEndpointClass(hostname: string, provider?: string): string {
  const host = hostname.replace(/^\[(.*)\]$/, '$1').toLowerCase();
  const platform = anthropicPlatformOfHost(host, provider);
  return platform === 'compatible' ? `host:${host}` : platform;
}

/** Host-only platform detection (origin stamps keep the hostname, not the path). */
function anthropicPlatformOfHost(host: string, provider?: string): AnthropicPlatform {
  if (host === '' || hostnameMatches(host, 'anthropic.com')) return 'direct';
  if (isBedrockRuntimeHost(host)) return 'bedrock';
  if (isVertexHost(host)) return 'vertex';
  if (hostnameMatches(host, 'services.ai.azure.com')) return 'foundry';
  if (isLocalHostname(host)) return PLATFORM_PROVIDERS[(provider ?? '').trim().toLowerCase()] ?? 'compatible';
  return 'compatible';
}

/** What the Anthropic Messages encoder and the signature recovery know about a route (SPEC §9). */
export interface AnthropicRouteFacts {
  /** How thinking blocks are treated (SPEC §9.2, first match wins). */
  treatment: AnthropicRouteTreatment;
  /** The Claude platform behind the endpoint: URL shape, auth and body framing (WIRE.md §2.5). */
  platform: AnthropicPlatform;
  /** Issuer class for origin scoping of signatures (SPEC §23.2). */
  endpointClass: string;
  /** Signatures and redacted data are verified on this route (SPEC §9.2): `native` or `minimax`. */
  signedReplay: boolean;
  /** Which prior assistant turns keep their thinking (SPEC §9.3). */
  thinkingScope: AnthropicThinkingScope;
  /** The model takes `thinking: {type: "adaptive"}` plus `output_config.effort` (WIRE.md §2.1). */
  adaptiveThinking: boolean;
  /** `thinking: {type: "enabled"}` needs the interleaved-thinking beta (WIRE.md §2.1). */
  interleavedThinkingBeta: boolean;
  /**
   * MiniMax-M3 (exactly that id, case-insensitive) takes exactly `{"type":"adaptive"}` with
   * reasoning on and `{"type":"disabled"}` with it off (SPEC §24.2, §25.2).
   */
  adaptiveOrDisabledThinking: boolean;
  /**
   * The model checks replayed signed thinking against the model and prefix it was produced with
   * (SPEC §26.4), on every platform: Hermes captures binding contexts and leaves stale blocks out.
   */
  prefixChecked: boolean;
  /**
   * Requests may declare `thinking.block_binding.prefix_mismatch_behavior: "drop_block"` with the
   * beta header (SPEC §26.4): the direct Claude API with a model Anthropic's docs list. Never on
   * Bedrock, Vertex, Foundry or a relay: no evidence they accept it.
   */
  bindingControls: boolean;
  /**
   * Compaction asks the API for the summary (on-demand compaction, SPEC §26.4): a bound model
   * Anthropic's compaction pages list, on the direct Claude API. Not on Bedrock (the pages say
   * "not available"), nor Vertex, Foundry or a relay (no evidence Hermes's requests reach it there).
   */
  onDemandCompaction: boolean;
}

export { isMiniMaxM3 } from './replay-model-ids.js';

/** Resolves every Anthropic fact about a route (SPEC §9.1–§9.3, §23.2). */
export function resolveAnthropicRoute(input: AnthropicEndpointInput): AnthropicRouteFacts {
  const treatment = classifyAnthropicRoute(input);
  const platform = anthropicPlatform(input.baseUrl, input.provider);
  return {
    treatment,
    platform,
    endpointClass: anthropicEndpointClass(hostnameOf(input.baseUrl), input.provider),
    signedReplay: isSignedReplayRoute(treatment),
    thinkingScope: anthropicThinkingScope(treatment, input.model),
    adaptiveThinking: supportsAdaptiveThinking(input.model),
    interleavedThinkingBeta: needsInterleavedThinkingBeta(input.model),
    adaptiveOrDisabledThinking: isMiniMaxM3(input.model),
    prefixChecked: treatment === 'native' && checksThinkingPrefix(input.model),
    bindingControls: treatment === 'native' && platform === 'direct' && acceptsBindingControls(input.model),
    onDemandCompaction:
      treatment === 'native' &&
      platform === 'direct' &&
      checksThinkingPrefix(input.model) &&
      acceptsOnDemandCompaction(input.model),
  };
}
