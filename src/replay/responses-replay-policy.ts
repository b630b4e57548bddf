import { unreadCarrierDecisions } from './replay-native-drops.js';
import { isJsonObject } from '../core/json.js';
import type { JsonObject } from '../core/json.js';
import type { Message } from '../core/message.js';
import { hostnameMatches, hostnameOf } from './replay-host.js';
import { compactsNatively } from './replay-model-ids.js';
import type { CarrierDecision } from './replay-types.js';

/**
 * Pure replay policy for the OpenAI Responses API's encrypted reasoning (SPEC §12, §16, §23.2;
 * WIRE.md §5.4). Given the stored history and the target route's issuer, it decides which
 * stored reasoning items, compaction checkpoints and message-item ids travel, and explains every
 * drop. It never mutates the history: wire items are fresh copies.
 */

// ---------------------------------------------------------------------------------------------
// Issuers
// ---------------------------------------------------------------------------------------------

/**
 * Who minted an `encrypted_content` blob (SPEC §12): `xai_responses`, `github_responses`,
 * `codex_backend`, `other:<base_url>` (any other explicit endpoint) or `other` (no URL known).
 * A blob only verifies at the issuer that minted it: "The encrypted content … could not be
 * verified." (WIRE.md §5.5) is what another deployment answers.
 */
export type ResponsesIssuerKind = string;

/** Private key stamped on every captured item: the issuer that minted it. */
export const ISSUER_KIND_KEY = '_issuer_kind';

/**
 * Private key stamped on a captured reasoning item that preceded a function call: that call's
 * `call_id`, so replay puts the item back right before the same call (WIRE.md §5.4: "never send
 * a reasoning item without its following item"). Absent means it preceded the message item.
 */
export const PRECEDES_CALL_ID_KEY = '_precedes_call_id';

/** Reasoning item ids with this prefix are provisional and never stored (SPEC §12). */
export const TEMPORARY_REASONING_ID_PREFIX = 'rs_tmp_';

/** Longest message-item id replayed (SPEC §12); longer ids are host-specific handles. */
export const MAX_MESSAGE_ITEM_ID_LENGTH = 64;

/**
 * The keys a replayed `reasoning` input item may carry (SPEC §24.4; WIRE.md §5.4: `type`, `id`,
 * `summary`, `encrypted_content`, `content` optional). `id` travels only where
 * {@link keepsReasoningIds} says so. Output-only keys a stored item may hold (`status`,
 * `response_id`) and the private `_…` stamps never reach the wire.
 */
const REASONING_INPUT_KEYS: readonly string[] = ['type', 'encrypted_content', 'summary', 'content'];

/**
 * Azure OpenAI / Foundry Responses hosts (SPEC §24.5): they resolve a same-issuer reasoning
 * item's `rs_` id, so the id travels there.
 */
const AZURE_RESPONSES_DOMAINS: readonly string[] = [
  'openai.azure.com',
  'services.ai.azure.com',
  'cognitiveservices.azure.com',
];

/** Reasoning ids Azure resolves (SPEC §24.5); other ids (DeepSeek's UUIDs) never travel. */
const REASONING_ID_PREFIX = 'rs_';

/**
 * True when the route's host keeps a same-issuer reasoning item's `rs_` id (SPEC §24.5): Azure
 * OpenAI and Foundry Responses endpoints. Everywhere else `store: false` cannot resolve an id
 * ("Item with id 'rs_…' not found", WIRE.md §5.5), so it is dropped (SPEC §12).
 */
export function keepsReasoningIds(routeHost: string): boolean {
  return AZURE_RESPONSES_DOMAINS.some((domain) => hostnameMatches(routeHost, domain));
}

/** Provider ids that mean GitHub Copilot, whose enterprise hosts vary. */
const COPILOT_PROVIDERS = new Set(['copilot', 'github-copilot']);

/**
 * The issuer kind of a Responses endpoint (SPEC §12). `baseUrl` is the resolved base URL (the
 * provider default already applied); `provider` is consulted only for Copilot. Two routes share
 * encrypted items exactly when their issuer kinds are equal.
 */
export function responsesIssuerKind(provider: string, baseUrl: string | undefined): ResponsesIssuerKind {
  const isCopilot = COPILOT_PROVIDERS.has(provider.trim().toLowerCase());
  const normalized = (baseUrl ?? '').trim().replace(/\/+$/, '');
  if (normalized === '') return isCopilot ? 'github_responses' : 'other';
  const host = hostnameOf(normalized);
  if (hostnameMatches(host, 'x.ai')) return 'xai_responses';
  if (isCopilot || hostnameMatches(host, 'githubcopilot.com')) return 'github_responses';
  if (hostnameMatches(host, 'chatgpt.com') && /\/backend-api\/codex(?:\/|$)/.test(normalized)) return 'codex_backend';
  return `other:${normalized}`;
}

/** The OpenAI API host that compacts natively (SPEC §24.7); the Codex backend is the other. */
const NATIVE_COMPACTION_HOST = 'api.openai.com';

/**
 * SPEC §24.7 eligibility, a route fact: the model id contains `gpt-5.6` and the route is
 * `api.openai.com` or the ChatGPT Codex backend (issuer `codex_backend`). Only eligible routes
 * are sent `context_management` and replayed compaction checkpoints.
 */
export function nativeCompactionEligible(model: string, baseUrl: string | undefined, issuerKind: string): boolean {
  if (!compactsNatively(model)) return false;
  return issuerKind === 'codex_backend' || hostnameMatches(hostnameOf(baseUrl), NATIVE_COMPACTION_HOST);
}

// ---------------------------------------------------------------------------------------------
// Plan
// ---------------------------------------------------------------------------------------------

/** Inputs of {@link planResponsesReplay}. */
export interface ResponsesReplayOptions {
  /** Issuer kind of the target route. */
  issuerKind: ResponsesIssuerKind;
  /** Hostname of the target route's configured base URL, "" for the provider default (as in origin stamps). */
  routeHost: string;
  /**
   * Kill switch (SPEC §12): false after an `invalid_encrypted_content` error on this
   * (route, session), so no encrypted item travels until the session moves on.
   */
  replayEncryptedReasoning: boolean;
  /**
   * Native compaction is on for this request (SPEC §24.7): the route is eligible and no 4xx
   * turned it off. Only then do compaction checkpoints travel. Absent: off.
   */
  nativeCompaction?: boolean;
}

/** A reasoning item ready for the wire, plus where it goes. */
export interface PlannedReasoningItem {
  /** Wire copy: input-schema keys only (SPEC §24.4); `id` only where SPEC §24.5 keeps it. */
  item: JsonObject;
  /** The function call it preceded, when it preceded one. */
  precedesCallId: string | undefined;
}

/** What one assistant message contributes to the Responses `input`. */
export interface ResponsesMessagePlan {
  reasoningItems: PlannedReasoningItem[];
  /** Compaction checkpoints (only the newest survives), wire copies. */
  compactionItems: JsonObject[];
  /** `id` / `phase` for the assistant message item, from `codex_message_items`. */
  messageItemId: string | undefined;
  messageItemPhase: string | undefined;
}

/** Result of {@link planResponsesReplay}. */
export interface ResponsesReplayPlan {
  /** Plan per assistant message, by history index. */
  messages: Map<number, ResponsesMessagePlan>;
  /** One decision per stored item considered (SPEC §23.3). */
  decisions: CarrierDecision[];
  /**
   * History index of the message carrying the replayed checkpoint (SPEC §24.7): the input starts
   * there (leading system messages aside), since the checkpoint stands for everything before it.
   * Undefined when no checkpoint travels.
   */
  checkpointIndex: number | undefined;
}

const utf8 = new TextEncoder();

function byteSize(value: unknown): number | undefined {
  return typeof value === 'string' ? utf8.encode(value).length : undefined;
}

/** Copies a reasoning item for the wire: input-schema keys only (SPEC §24.4), `id` when kept. */
function reasoningWireCopy(item: JsonObject, keepId: boolean): JsonObject {
  const copy: JsonObject = {};
  for (const key of keepId ? ['id', ...REASONING_INPUT_KEYS] : REASONING_INPUT_KEYS) {
    const value = item[key];
    if (value !== undefined) copy[key] = structuredClone(value);
  }
  return copy;
}

/** Copies an item for the wire: no `id`, no private `_…` keys. */
function wireCopy(item: JsonObject, dropId: boolean): JsonObject {
  const copy: JsonObject = {};
  for (const [key, value] of Object.entries(item)) {
    if (key.startsWith('_') || (dropId && key === 'id') || value === undefined) continue;
    copy[key] = structuredClone(value);
  }
  return copy;
}

/**
 * Why an opaque item may not go to this route, or null when it may (SPEC §23.2). "Matches" for
 * Responses: the item's `_issuer_kind` equals the route's issuer kind. An unstamped (legacy)
 * item passes unless its message's origin stamp names another wire API or another host.
 */
function foreignReason(item: JsonObject, message: Message, options: ResponsesReplayOptions): string | null {
  const stamped = item[ISSUER_KIND_KEY];
  if (typeof stamped === 'string') {
    return stamped === options.issuerKind ? null : `foreign issuer ${stamped}`;
  }
  const origin = message.role === 'assistant' ? message.origin : undefined;
  if (origin === undefined) return null;
  if (origin.api !== 'codex_responses') return `foreign origin ${origin.api}`;
  if (origin.host !== '' && options.routeHost !== '' && origin.host !== options.routeHost) {
    return `foreign origin host ${origin.host}`;
  }
  return null;
}

/** Indexes of the newest compaction checkpoint: `[messageIndex, itemIndex]`, or null. */
function newestCompaction(history: readonly Message[]): [number, number] | null {
  let newest: [number, number] | null = null;
  history.forEach((message, messageIndex) => {
    if (message.role !== 'assistant') return;
    (message.codex_reasoning_items ?? []).forEach((item, itemIndex) => {
      if (isJsonObject(item) && item['type'] === 'compaction') newest = [messageIndex, itemIndex];
    });
  });
  return newest;
}

/**
 * Decides, for every assistant message, which stored Responses items travel to the route
 * described by `options` (SPEC §12): reasoning items carry input-schema keys only (SPEC §24.4)
 * and lose `id` except a same-issuer `rs_` id on Azure (SPEC §24.5); items from
 * another issuer are skipped; duplicates by id are removed; items without `encrypted_content`
 * are skipped (an id alone 404s under `store: false`, WIRE.md §5.5); compaction checkpoints
 * superseded by a newer one are dropped (SPEC §16); the newest travels only with native
 * compaction on and the same issuer, and then stands for everything before it (SPEC §24.7); the
 * kill switch drops every encrypted item.
 */
export function planResponsesReplay(history: readonly Message[], options: ResponsesReplayOptions): ResponsesReplayPlan {
  const messages = new Map<number, ResponsesMessagePlan>();
  const decisions: CarrierDecision[] = [];
  const seenIds = new Set<string>();
  const newest = newestCompaction(history);
  const azure = keepsReasoningIds(options.routeHost);
  const checkpoint = newest === null ? null : checkpointDrop(history, newest, options);
  const checkpointIndex = newest !== null && checkpoint === null ? newest[0] : undefined;

  history.forEach((message, messageIndex) => {
    if (message.role !== 'assistant') return;
    const plan: ResponsesMessagePlan = {
      reasoningItems: [],
      compactionItems: [],
      messageItemId: undefined,
      messageItemPhase: undefined,
    };
    messages.set(messageIndex, plan);
    const decide = (field: string, action: CarrierDecision['action'], reason: string, value?: unknown) => {
      const bytes = byteSize(value);
      decisions.push({ messageIndex, field, action, reason, ...(bytes === undefined ? {} : { bytes }) });
    };

    const beforeCheckpoint = checkpointIndex !== undefined && messageIndex < checkpointIndex;
    (message.codex_reasoning_items ?? []).forEach((item, itemIndex) => {
      const field = `codex_reasoning_items[${itemIndex}]`;
      if (!isJsonObject(item)) return decide(field, 'dropped', 'not an item object');
      const encrypted = item['encrypted_content'];
      if (item['type'] === 'compaction') {
        if (newest === null || newest[0] !== messageIndex || newest[1] !== itemIndex) {
          return decide(field, 'dropped', 'compaction checkpoint superseded by a newer one', encrypted);
        }
        if (checkpoint !== null) return decide(field, 'dropped', checkpoint, encrypted);
        plan.compactionItems.push(wireCopy(item, true));
        return decide(field, 'kept', 'newest compaction checkpoint', encrypted);
      }
      if (beforeCheckpoint) {
        return decide(field, 'dropped', 'before the newest compaction checkpoint (SPEC §24.7)', encrypted);
      }
      if (item['type'] !== 'reasoning') return decide(field, 'dropped', `unknown item type ${String(item['type'])}`);
      const id = typeof item['id'] === 'string' ? item['id'] : undefined;
      if (id?.startsWith(TEMPORARY_REASONING_ID_PREFIX)) {
        return decide(field, 'dropped', 'temporary rs_tmp_ item', encrypted);
      }
      if (typeof encrypted !== 'string' || encrypted === '') {
        return decide(field, 'dropped', 'no encrypted_content (store:false cannot resolve ids)');
      }
      if (!options.replayEncryptedReasoning) {
        return decide(field, 'dropped', 'encrypted replay off after invalid_encrypted_content', encrypted);
      }
      const foreign = foreignReason(item, message, options);
      if (foreign !== null) return decide(field, 'dropped', foreign, encrypted);
      if (id !== undefined) {
        if (seenIds.has(id)) return decide(field, 'dropped', 'duplicate reasoning item id', encrypted);
        seenIds.add(id);
      }
      const precedes = item[PRECEDES_CALL_ID_KEY];
      const stamped = typeof item[ISSUER_KIND_KEY] === 'string';
      // SPEC §24.5: only a stamped same-issuer item proves the id was minted by this deployment.
      const keepId = azure && stamped && id !== undefined && id.startsWith(REASONING_ID_PREFIX);
      plan.reasoningItems.push({
        item: reasoningWireCopy(item, keepId),
        precedesCallId: typeof precedes === 'string' ? precedes : undefined,
      });
      const reason = stamped ? 'same issuer' : 'unstamped legacy item';
      decide(field, 'kept', keepId ? `${reason}, rs_ id kept (Azure resolves it)` : reason, encrypted);
    });

    if (!beforeCheckpoint) planMessageItem(message, plan, options, decide);
    decisions.push(...unreadCarrierDecisions(message, messageIndex, 'codex_responses'));
  });
  return { messages, decisions, checkpointIndex };
}

/**
 * Why the newest checkpoint may not travel, or null when it may (SPEC §24.7): it needs
 * `encrypted_content`, encrypted replay on, native compaction on for the request (an eligible
 * route, not turned off by a 4xx) and the same issuer.
 */
function checkpointDrop(
  history: readonly Message[],
  [messageIndex, itemIndex]: [number, number],
  options: ResponsesReplayOptions,
): string | null {
  const message = history[messageIndex] as Message;
  const item = (message.role === 'assistant' ? message.codex_reasoning_items?.[itemIndex] : undefined) as JsonObject;
  const encrypted = item['encrypted_content'];
  if (typeof encrypted !== 'string' || encrypted === '') return 'compaction checkpoint without encrypted_content';
  if (!options.replayEncryptedReasoning) return 'encrypted replay off after invalid_encrypted_content';
  if (options.nativeCompaction !== true) return 'native compaction not on for this route (SPEC §24.7)';
  return foreignReason(item, message, options);
}

/** `codex_message_items`: the last item's `phase` always, its `id` only where it may travel (SPEC §12). */
function planMessageItem(
  message: Message,
  plan: ResponsesMessagePlan,
  options: ResponsesReplayOptions,
  decide: (field: string, action: CarrierDecision['action'], reason: string, value?: unknown) => void,
): void {
  if (message.role !== 'assistant') return;
  const items = (message.codex_message_items ?? []).filter(isJsonObject);
  const last = items[items.length - 1];
  if (last === undefined) return;
  if (typeof last['phase'] === 'string') plan.messageItemPhase = last['phase'];
  const id = last['id'];
  if (typeof id !== 'string' || id === '') return;
  const field = 'codex_message_items.id';
  // Copilot rotates item ids between events and rejects the ones it handed out (WIRE.md §5.3).
  if (options.issuerKind === 'github_responses') return decide(field, 'dropped', 'GitHub rejects message ids', id);
  if (id.length > MAX_MESSAGE_ITEM_ID_LENGTH) return decide(field, 'dropped', 'id longer than 64 characters', id);
  const foreign = foreignReason(last, message, options);
  if (foreign !== null) return decide(field, 'dropped', foreign, id);
  plan.messageItemId = id;
  decide(field, 'kept', 'message item id', id);
}
