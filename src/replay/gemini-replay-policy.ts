import { isJsonObject } from '../core/json.js';
import type { AssistantMessage } from '../core/message.js';
import type { Route } from '../core/route.js';
import { findCarrierRecord } from './replay-carrier-record.js';
import { hostnameOf } from './replay-host.js';
import { geminiModelFamily, normalizeGeminiModel } from './replay-model-ids.js';

export { geminiModelFamily, normalizeGeminiModel } from './replay-model-ids.js';

/**
 * Gemini native replay policy (SPEC §11, §23.2): which issuer a route is, which model family it
 * serves, and whether a stored assistant turn's `thoughtSignature`s may travel to it; encoders ask
 * it. The model id itself is read in replay-model-ids.ts (STYLE rule 2 (docs/architecture.md)).
 */

/** The two Google endpoints that issue and validate thought signatures. */
export type GeminiIssuerKind = 'ai-studio' | 'vertex';

/** What the Gemini replay policy needs to know about a route. */
export interface GeminiRouteFacts {
  issuerKind: GeminiIssuerKind;
  /**
   * Signature issuer identity: `ai-studio` or `vertex` on Google hosts (a Vertex signature is
   * valid in every Vertex region), `<kind>@<host>` anywhere else (proxies, emulators), because a
   * foreign host may hold its own keys.
   */
  issuer: string;
  /** Hostname of the base URL ("" when the provider default is used). */
  host: string;
  /** Model id without a `models/` or `publishers/google/models/` prefix. */
  model: string;
  /** `gemini-3.0`, `gemini-2.5`, `gemma-3.0`, ...; the exact model id for unversioned aliases; null off Gemini/Gemma. */
  family: string | null;
  /** Major model generation (3 for `gemini-3-pro-preview`), null when the id carries none. */
  generation: number | null;
  /** Gemini ≥ 3 takes `functionCall.id` / `functionResponse.id` back (SPEC §11). */
  sendsFunctionCallIds: boolean;
  /** Gemini 3 takes `thinkingLevel`; 2.5 and older take `thinkingBudget` (WIRE.md §4.1). */
  thinkingStyle: 'level' | 'budget';
}

/** Provider ids that mean Vertex AI when no base URL says otherwise. */
const VERTEX_PROVIDER_IDS = new Set(['vertex', 'vertex-ai', 'vertex_ai', 'google-vertex', 'vertexai']);

/**
 * Issuer kind of a route: a Vertex host or Vertex path shape (`/projects/P/locations/L`) means
 * Vertex, the AI Studio host means AI Studio; other hosts (proxies, the local emulator) follow
 * the path shape, then the provider id.
 */
export function geminiIssuerKind(provider: string, baseUrl: string | undefined): GeminiIssuerKind {
  const host = hostnameOf(baseUrl);
  if (host === 'aiplatform.googleapis.com' || host.endsWith('-aiplatform.googleapis.com')) return 'vertex';
  if (host === 'generativelanguage.googleapis.com') return 'ai-studio';
  if (baseUrl && /\/projects\/[^/]+\/locations\/[^/]+/.test(baseUrl)) return 'vertex';
  return VERTEX_PROVIDER_IDS.has(provider.trim().toLowerCase()) ? 'vertex' : 'ai-studio';
}

/** Issuer identity for a kind on a host (see {@link GeminiRouteFacts.issuer}). */
export function geminiIssuer(kind: GeminiIssuerKind, host: string): string {
  return host === '' || host.endsWith('.googleapis.com') ? kind : `${kind}@${host}`;
}

/** Resolves every Gemini fact about a route. */
export function resolveGeminiRoute(route: Route): GeminiRouteFacts {
  const host = hostnameOf(route.baseUrl);
  const issuerKind = geminiIssuerKind(route.provider, route.baseUrl);
  const model = normalizeGeminiModel(route.model);
  const { family, generation } = geminiModelFamily(model);
  return {
    issuerKind,
    issuer: geminiIssuer(issuerKind, host),
    host,
    model,
    family,
    generation,
    sendsFunctionCallIds: generation !== null && generation >= 3,
    thinkingStyle: generation !== null && generation >= 3 ? 'level' : 'budget',
  };
}

/** Whether a stored turn's signatures may go to a route, and why (for the decision log). */
export interface SignatureVerdict {
  travel: boolean;
  reason: string;
}

/**
 * SPEC §23.2 for Gemini: a signature goes back only to its issuer and model family.
 * "Matches" means: the message arrived on the native `gemini` wire API, its issuer (the stored
 * `gemini_issuer`, else derived from the origin host and provider) equals the route's issuer,
 * and its model family equals the route's. Gemini OpenAI-compat turns (`chat_completions`) are
 * a different wire API and count as foreign. Unstamped legacy messages follow SPEC §7.4: the
 * signature is lifted whenever the target model is a Gemini/Gemma model.
 */
export function geminiSignatureVerdict(message: AssistantMessage, facts: GeminiRouteFacts): SignatureVerdict {
  if (facts.family === null) return { travel: false, reason: 'route model is not Gemini' };
  const origin = message.origin;
  if (!origin) return { travel: true, reason: 'legacy unstamped message, Gemini route' };
  if (origin.api !== 'gemini') return { travel: false, reason: `foreign origin (${origin.api})` };
  const stored = message.gemini_issuer;
  const issuer =
    typeof stored === 'string'
      ? stored
      : geminiIssuer(
          geminiIssuerKind(origin.provider, origin.host ? `https://${origin.host}` : undefined),
          origin.host,
        );
  if (issuer !== facts.issuer) return { travel: false, reason: `foreign origin (issuer ${issuer})` };
  const originFamily = geminiModelFamily(origin.model).family;
  if (originFamily !== facts.family) return { travel: false, reason: `foreign origin (model family ${originFamily})` };
  return { travel: true, reason: 'same issuer and model family' };
}

/** A usable signature: a non-blank string. */
export function usableSignature(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim() !== '' ? value : undefined;
}

/**
 * A tool call's Gemini signature (SPEC §11): `extra_content.google.thought_signature`, else the
 * flat `extra_content.thought_signature`.
 */
export function toolCallSignature(extraContent: unknown): string | undefined {
  if (!isJsonObject(extraContent)) return undefined;
  const google = extraContent['google'];
  if (isJsonObject(google)) {
    const nested = usableSignature(google['thought_signature']);
    if (nested) return nested;
  }
  return usableSignature(extraContent['thought_signature']);
}

/** The message-level signature from the private `hermes.native_assistant` record (SPEC §7.1). */
export function messageLevelSignature(message: AssistantMessage): string | undefined {
  return toolCallSignature(findCarrierRecord(message.reasoning_details)?.extra_content);
}
