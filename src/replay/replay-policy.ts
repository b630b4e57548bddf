import type { JsonObject, JsonValue } from '../core/json.js';
import type { Route } from '../core/route.js';
import { REASONING_ECHO_PAD } from './replay-must-echo.js';
import { resolveRouteProfile, type RouteProfile } from './replay-route-profile.js';
import type { Carrier, RouteOverride } from './replay-types.js';

/**
 * The effective replay decision (SPEC §6): which carriers a route gets, whether tool turns are
 * padded, and the per-message policy that writes carriers into a wire copy.
 */

/** Inputs of {@link reasoningReplayRoute} besides the route. */
export interface ReplayRouteOptions {
  /** `model.reasoning_echo` opt-in (SPEC §4, PR #90193). */
  echoOptIn?: boolean | undefined;
  /** Learned verdicts for this route key (SPEC §13): carriers never to send. */
  rejected?: readonly Carrier[] | undefined;
  /** User route rows (SPEC §23.4). */
  overrides?: readonly RouteOverride[] | undefined;
  /** Provider profile `native_reasoning_details_type` (SPEC §5 post-step). */
  profileNativeReasoningDetailsType?: string | undefined;
}

/** The outcome of SPEC §6.1 plus what explains it. */
export interface ReplayRouteDecision {
  /** Pad assistant turns lacking replayable text with `" "`. */
  pad: boolean;
  /** Carriers the route gets, or null for non-chat wire APIs (carriers decided by the native adapter). */
  carriers: Carrier[] | null;
  /** Carriers the route table gives before verdicts are subtracted (null for non-chat APIs). */
  tableCarriers: Carrier[] | null;
  /** Route-table row that matched (`strict`, `full`, `override`, `fallback`, ...). */
  row: string;
  /** Must-echo family, or null (SPEC §4). */
  mustEchoFamily: string | null;
  /** True when padding comes from the opt-in rather than the tier. */
  echoOptIn: boolean;
}

/** SPEC §6.1 `reasoning_replay_route`. */
export function reasoningReplayRoute(route: Route, options: ReplayRouteOptions = {}): ReplayRouteDecision {
  const profile = resolveRouteProfile(route, options.overrides, {
    echoOptIn: options.echoOptIn,
    nativeReasoningDetailsType: options.profileNativeReasoningDetailsType,
  });
  if ((route.api ?? 'chat_completions') !== 'chat_completions') {
    return {
      pad: profile.pad,
      carriers: null,
      tableCarriers: null,
      row: 'native-adapter',
      mustEchoFamily: profile.mustEchoFamily,
      echoOptIn: profile.echoOptIn,
    };
  }
  return chatReplayDecision(profile, options.rejected);
}

/** SPEC §6.1 on a resolved profile: the route's carriers minus the learned verdicts, and padding. */
export function chatReplayDecision(profile: RouteProfile, rejected: readonly Carrier[] = []): ReplayRouteDecision {
  const table = profile.chat.carriers;
  const carriers = table.filter((carrier) => !rejected.includes(carrier));
  return {
    // SPEC §6.1 step 4: a strict route or a rejected RC never pads.
    pad: profile.pad && carriers.includes('reasoning_content'),
    carriers,
    tableCarriers: [...table],
    row: profile.chat.row,
    mustEchoFamily: profile.mustEchoFamily,
    echoOptIn: profile.echoOptIn,
  };
}

/** The reasoning fields the policy reads from a message (a canonical message or a wire copy). */
export interface PolicySource {
  role?: unknown;
  reasoning_content?: unknown;
  reasoning?: unknown;
  tool_calls?: unknown;
  reasoning_details?: unknown;
}

// `/\S/` stops at the first non-space character; `trim()` would copy multi-kilobyte texts.
const NON_SPACE = /\S/;

function isNonBlank(value: unknown): value is string {
  return typeof value === 'string' && NON_SPACE.test(value);
}

/**
 * SPEC §6.2: `reasoning_content` when it has non-whitespace characters, else non-blank
 * `reasoning`, else null. A whitespace-only RC (a previous `" "` pad) is ignored.
 */
export function replayableText(source: PolicySource): string | null {
  if (isNonBlank(source.reasoning_content)) return source.reasoning_content;
  if (isNonBlank(source.reasoning)) return source.reasoning;
  return null;
}

/** True for a private carrier record type (`hermes.native_assistant` and provider variants). */
export function isNativeAssistantRecord(entry: unknown): boolean {
  if (typeof entry !== 'object' || entry === null) return false;
  const type = (entry as JsonObject)['type'];
  return typeof type === 'string' && type.endsWith('.native_assistant');
}

/**
 * SPEC §6.3 `apply_reasoning_content_policy`: writes the carriers of one assistant message into
 * its wire copy `wire` (non-assistant messages are untouched). Reads text from `source`, which may
 * be `wire` itself (re-application). Idempotent. `reasoning_details` is only ever replaced by a
 * filtered copy, never edited in place, so a shared array stays intact.
 */
export function applyReasoningContentPolicy(
  source: PolicySource,
  wire: JsonObject,
  pad: boolean,
  carriers: readonly Carrier[] | null,
): void {
  if (source.role !== 'assistant') return;
  const text = replayableText(source);
  if (carriers === null && pad) {
    // Legacy/pad-only branch (non-chat wire APIs).
    const existing = source.reasoning_content;
    if (typeof existing === 'string') wire['reasoning_content'] = existing === '' ? REASONING_ECHO_PAD : existing;
    else if (isNonBlank(source.reasoning) && !hasToolCalls(source)) wire['reasoning_content'] = source.reasoning;
    else wire['reasoning_content'] = REASONING_ECHO_PAD;
    return;
  }
  const outcome = policyCarriers(source, pad, carriers, text);
  if (outcome.reasoningContent !== undefined) wire['reasoning_content'] = outcome.reasoningContent;
  else delete wire['reasoning_content'];
  if (outcome.reasoning !== undefined) wire['reasoning'] = outcome.reasoning;
  else delete wire['reasoning'];
  if (outcome.detailsRecordsOnly) {
    const details = wire['reasoning_details'];
    const records = Array.isArray(details) ? recordsOnly(details) : undefined;
    if (records === undefined || records.length === 0) delete wire['reasoning_details'];
    else if (records.length !== (details as JsonValue[]).length) wire['reasoning_details'] = records as JsonValue[];
  }
}

/** The normal-branch outcome of SPEC §6.3 for one assistant message (shared by the builder). */
export interface PolicyCarriers {
  /** RC to send, or undefined to send none. */
  reasoningContent: string | undefined;
  /** R to send, or undefined to send none. */
  reasoning: string | undefined;
  /** RD is not read: keep only `*.native_assistant` records (later consumed by SPEC §7 shaping). */
  detailsRecordsOnly: boolean;
}

/** SPEC §6.3 normal branch as values, so the builder can assign keys once instead of deleting them. */
export function policyCarriers(
  source: PolicySource,
  pad: boolean,
  carriers: readonly Carrier[] | null,
  text: string | null = replayableText(source),
): PolicyCarriers {
  const effective: readonly Carrier[] = carriers ?? (pad ? ['reasoning_content'] : []);
  return {
    reasoningContent:
      effective.includes('reasoning_content') && (text !== null || pad) ? (text ?? REASONING_ECHO_PAD) : undefined,
    reasoning: effective.includes('reasoning') && text !== null ? text : undefined,
    detailsRecordsOnly: carriers !== null && !carriers.includes('reasoning_details'),
  };
}

/** The `*.native_assistant` entries of a `reasoning_details` list (the same array when all are records). */
export function recordsOnly(details: readonly JsonValue[]): readonly JsonValue[] {
  const records = details.filter(isNativeAssistantRecord);
  return records.length === details.length ? details : records;
}

function hasToolCalls(source: PolicySource): boolean {
  return Array.isArray(source.tool_calls) && source.tool_calls.length > 0;
}

/**
 * SPEC §6.4 `reapply_reasoning_echo`: re-runs the policy in place over an already built request
 * (after compression or a fallback route swap). In the legacy branch a message already carrying
 * a truthy RC is skipped. Returns how many assistant messages had their (RC, R, RD) triple
 * changed; a second call returns 0.
 */
export function reapplyReasoningEcho(
  apiMessages: JsonObject[],
  pad: boolean,
  carriers: readonly Carrier[] | null = null,
): number {
  let changed = 0;
  for (const message of apiMessages) {
    if (message['role'] !== 'assistant') continue;
    if (
      carriers === null &&
      pad &&
      typeof message['reasoning_content'] === 'string' &&
      message['reasoning_content'] !== ''
    ) {
      continue;
    }
    const before = [message['reasoning_content'], message['reasoning'], message['reasoning_details']];
    applyReasoningContentPolicy(message, message, pad, carriers);
    const after = [message['reasoning_content'], message['reasoning'], message['reasoning_details']];
    if (before.some((value, index) => value !== after[index])) changed += 1;
  }
  return changed;
}
