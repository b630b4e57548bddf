import { hostnameMatches, hostnameOf, isLocalEndpoint } from './replay-host.js';
import { matchRouteOverride } from './replay-route-override.js';
import type { Carrier, RouteOverride } from './replay-types.js';
import { CARRIERS } from './replay-types.js';

/**
 * The chat-completions carrier route table (SPEC §5): which of `reasoning_content`,
 * `reasoning` and `reasoning_details` each route reads. Data, evaluated first-match-wins; a row
 * matches when the trimmed lower-cased provider id is listed or the base URL host-matches one of
 * its hosts (SPEC §3.1).
 */

/** One row of the carrier route table. */
export interface CarrierRouteRow {
  /** Short name used in decision reasons ("strict route", "full", ...). */
  name: string;
  carriers: readonly Carrier[];
  providers: readonly string[];
  hosts: readonly string[];
  /** Where the row comes from (SPEC section, or recorded evidence for a Hermes TS refinement). */
  evidence: string;
}

/** SPEC §5, in evaluation order, with the Cerebras refinement of SPEC §23.7. */
export const CARRIER_ROUTE_ROWS: readonly CarrierRouteRow[] = [
  {
    // SPEC §23.7 refinement of the strict row: Cerebras accepts `reasoning` on input assistant
    // messages (fixtures/cerebras/pydantic-thinking-part-survives-multiturn.cassette.json, turn 2
    // sends {"content":"4.","reasoning":"…","role":"assistant"} and gets 200; WIRE.md §1.6) but
    // rejects `reasoning_content` with "messages.2.assistant.reasoning_content: property
    // 'messages.2.assistant.reasoning_content' is unsupported" (code wrong_api_format, WIRE.md §6).
    name: 'cerebras',
    carriers: ['reasoning'],
    providers: ['cerebras'],
    hosts: ['cerebras.ai'],
    evidence: 'SPEC §23.7; WIRE.md §1.6, §6; fixtures/cerebras/pydantic-thinking-part-survives-multiturn',
  },
  {
    // Closed request schemas: Mistral answers 422 `extra_forbidden` "Extra inputs are not
    // permitted"; Groq "property 'reasoning_content' is unsupported" (WIRE.md §6).
    name: 'strict',
    carriers: [],
    providers: ['mistral', 'groq', 'sambanova'],
    hosts: ['mistral.ai', 'groq.com', 'sambanova.ai', 'hunyuan.cloud.tencent.com'],
    evidence: 'SPEC §5 row 1',
  },
  {
    // Fireworks rejects `messages[i].reasoning` ("Extra inputs are not permitted, field:
    // 'messages[8].reasoning'", WIRE.md §6) but reads reasoning_content.
    name: 'reasoning-content-only',
    carriers: ['reasoning_content'],
    providers: ['fireworks'],
    hosts: ['fireworks.ai'],
    evidence: 'SPEC §5 row 2',
  },
  {
    name: 'full',
    carriers: ['reasoning_content', 'reasoning', 'reasoning_details'],
    providers: ['openrouter', 'kilocode', 'ai-gateway', 'nous'],
    hosts: ['openrouter.ai', 'kilo.ai', 'ai-gateway.vercel.sh', 'nousresearch.com'],
    evidence: 'SPEC §5 row 3',
  },
  {
    name: 'content-and-details',
    carriers: ['reasoning_content', 'reasoning_details'],
    providers: ['novita', 'tencent-tokenhub', 'minimax', 'minimax-cn'],
    hosts: [
      'novita.ai',
      'tokenhub.tencentmaas.com',
      'tokenhub-intl.tencentcloudmaas.com',
      'minimax.io',
      'minimaxi.com',
    ],
    evidence: 'SPEC §5 row 4',
  },
  {
    name: 'content-and-reasoning',
    carriers: ['reasoning_content', 'reasoning'],
    providers: ['ollama-cloud', 'custom', 'lmstudio', 'upstage'],
    hosts: ['ollama.com', 'upstage.ai'],
    evidence: 'SPEC §5 row 5',
  },
];

/** Options for {@link routeCarriers} and {@link resolveCarrierRoute}. */
export interface CarrierRouteOptions {
  /** User route rows (SPEC §23.4), matched before the built-in table. */
  overrides?: readonly RouteOverride[] | undefined;
  /** The provider profile's `native_reasoning_details_type` (SPEC §5 post-step). */
  profileNativeReasoningDetailsType?: string | undefined;
}

/** The resolved carrier set and which row produced it (for decision reasons). */
export interface CarrierRouteResolution {
  carriers: Carrier[];
  /** Row name: a built-in row, `override`, `local-fallback` or `fallback`. */
  row: string;
}

/** Resolves the carrier set with the row that produced it (SPEC §5 + post-step + §23.4, §23.7). */
export function resolveCarrierRoute(
  provider: string,
  baseUrl: string | undefined,
  options: CarrierRouteOptions = {},
): CarrierRouteResolution {
  // A user row states exactly what the route reads, so the profile post-step does not apply to it.
  const override = matchRouteOverride(options.overrides, provider, baseUrl);
  if (override) return { carriers: inCarrierOrder(override.carriers), row: 'override' };
  const providerId = provider.trim().toLowerCase();
  const host = hostnameOf(baseUrl);
  let resolution: CarrierRouteResolution | undefined;
  for (const row of CARRIER_ROUTE_ROWS) {
    if (row.providers.includes(providerId) || row.hosts.some((domain) => hostnameMatches(host, domain))) {
      resolution = { carriers: [...row.carriers], row: row.name };
      break;
    }
  }
  if (!resolution) {
    const local = baseUrl !== undefined && baseUrl.trim() !== '' && isLocalEndpoint(baseUrl);
    resolution = local
      ? { carriers: ['reasoning_content', 'reasoning'], row: 'local-fallback' }
      : { carriers: ['reasoning_content'], row: 'fallback' };
  }
  const nativeType = options.profileNativeReasoningDetailsType;
  if (
    nativeType !== undefined &&
    nativeType !== '' &&
    resolution.carriers.length > 0 &&
    !resolution.carriers.includes('reasoning_details')
  ) {
    resolution.carriers = inCarrierOrder([...resolution.carriers, 'reasoning_details']);
  }
  return resolution;
}

/** The carriers a chat-completions route reads, in SPEC order (SPEC §5, §23.4, §23.7). */
export function routeCarriers(
  provider: string,
  baseUrl: string | undefined,
  options: CarrierRouteOptions = {},
): Carrier[] {
  return resolveCarrierRoute(provider, baseUrl, options).carriers;
}

/** Deduplicates and orders carriers as {@link CARRIERS} lists them. */
export function inCarrierOrder(carriers: readonly Carrier[]): Carrier[] {
  return CARRIERS.filter((carrier) => carriers.includes(carrier));
}
