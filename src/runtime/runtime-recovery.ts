import { ApiError, type HermesError } from '../core/errors.js';
import type { WireApi } from '../core/origin.js';
import { REASONING_EFFORTS } from '../core/reasoning-options.js';
import { effortVocabularyFor } from '../providers/provider-effort.js';
import {
  classifyFieldRejection,
  effortRejection,
  looksLikeEffortRejection,
  nearestAcceptedEffort,
  fingerprintCondemnedBlocks,
  fingerprintSignedBlocks,
  isBoundConversationError,
  isBedrockRedactedRejection,
  isInvalidEncryptedContentError,
  isThinkingSignatureError,
  classifyRequiredCarrierRejection,
  relaySignatureFingerprints,
  stripBedrockRedactedReasoning,
} from '../replay/replay-recovery.js';
import type { Carrier, RouteProfile, StandInKind } from '../replay/replay-route-profile.js';
import type { PreparedRequest } from '../transports/shared/transport.js';
import { errorBodyOf } from './runtime-errors.js';
import {
  ANTHROPIC_BINDING_CONTROLS,
  ANTHROPIC_COMPACTION_OFF,
  ANTHROPIC_EMPTY_THINKING,
  ANTHROPIC_THINKING_FIRST,
  ANTHROPIC_THINKING_MODIFIED,
  DEEPSEEK_THINKING_REQUIRED,
  learnSystemBinding,
} from './runtime-recovery-anthropic.js';
import { GEMINI_SIGNATURE_REFUSED } from './runtime-recovery-gemini.js';
import { midStreamLog, recoverableFailure } from './runtime-recovery-mid-stream.js';
import { isThoughtSignatureRefusal, sentPlaceholder } from '../replay/replay-required-carrier.js';
import {
  encryptedReplayOffRoutes,
  nativeCompactionOffRoutes,
  persistEncryptedReplayOff,
  persistNativeCompactionOff,
  persistRejectedEfforts,
  persistRejectedThinking,
  persistStandIn,
  persistVerdict,
  rememberedThinkingFingerprints,
} from './runtime-route-memory.js';

export type { Recovery, RecoveryContext, RecoveryRow } from './runtime-recovery-types.js';
import type { Recovery, RecoveryContext, RecoveryRow } from './runtime-recovery-types.js';

/**
 * SPEC §13.1–§13.3: unknown-field verdicts on chat-completions. Never `reasoning_content` on a
 * must-echo route (the same must-echo answer the request was built with: a user route row,
 * SPEC §23.4, may declare or deny it), and only fields not already known.
 */
export function fieldsToLearn(
  profile: RouteProfile,
  errorBody: string,
  carriersSent: readonly Carrier[],
  alreadyRejected: readonly Carrier[],
): Carrier[] {
  if (profile.route.api !== 'chat_completions') return [];
  const mustEcho = profile.mustEchoFamily !== null;
  const named = classifyFieldRejection(errorBody, carriersSent, { mustEcho });
  return named.filter((field) => !alreadyRejected.includes(field) && !(mustEcho && field === 'reasoning_content'));
}

const FIELD_VERDICT: RecoveryRow = {
  name: 'field-verdict',
  classify: (c) => fieldsToLearn(c.profile, c.body, c.prepared.carriersSent, c.rejected).length > 0,
  async learn(c) {
    const fields = fieldsToLearn(c.profile, c.body, c.prepared.carriersSent, c.rejected);
    const config = await persistVerdict(c.store, c.sessionId, c.config, c.profile, fields, c.body);
    return {
      config,
      rejected: [...new Set([...c.rejected, ...fields])],
      stripAllThinking: false,
      log: `learned verdict: ${c.prepared.routeKey} rejects reasoning fields ${fields.join(', ')}; retrying once without them`,
      learned: { kind: 'verdict', fields },
    };
  },
};

/**
 * SPEC §24.8: a chat-completions route relaying Anthropic (it was sent `reasoning_details`)
 * answering that a thinking signature is invalid: fingerprint the entries sent, persist them in
 * the session and retry once without them. Nothing new to fingerprint: surface the error. The
 * same for OpenRouter relaying Gemini refusing the thought signatures it carried in those
 * entries (WIRE §8 "Corrupted thought signature."), unless a placeholder went out: that is the
 * `required-carrier` row's.
 */
const RELAY_SIGNATURE: RecoveryRow = {
  name: 'relay-signature',
  classify: (c) =>
    c.prepared.carriersSent.includes('reasoning_details') &&
    (isThinkingSignatureError(c.body) || (isThoughtSignatureRefusal(c.body) && !sentPlaceholder(c.prepared.body))),
  async learn(c) {
    const known = rememberedThinkingFingerprints(c.config);
    const fingerprints = relaySignatureFingerprints(c.prepared.body).filter((print) => !known.has(print));
    if (!fingerprints.length) return null;
    return {
      config: await persistRejectedThinking(c.store, c.sessionId, c.config, fingerprints),
      rejected: [...c.rejected],
      stripAllThinking: false,
      log: `thinking signature rejected on ${c.prepared.routeKey}: remembered ${fingerprints.length} reasoning_details fingerprint(s); retrying once without them`,
      learned: { kind: 'thinking-fingerprints', fields: fingerprints.map((print) => print.slice(0, 12)) },
    };
  },
};

/**
 * SPEC §9.4: a rejected Anthropic signature on a signed-replay route. The signed blocks sent are
 * fingerprinted and remembered; with nothing fingerprintable the retry alone drops all thinking.
 */
const ANTHROPIC_SIGNATURE: RecoveryRow = {
  name: 'anthropic-signature',
  classify: (c) => isThinkingSignatureError(c.body),
  async learn(c) {
    if (!c.profile.anthropic.signedReplay) return null;
    const known = rememberedThinkingFingerprints(c.config);
    // SPEC §26.4: a binding 400 condemns the block it names and every later one; earlier blocks
    // stay valid and keep travelling.
    const sent = isBoundConversationError(c.body)
      ? fingerprintCondemnedBlocks(c.prepared.body, c.body)
      : fingerprintSignedBlocks(c.prepared.body);
    const fingerprints = sent.filter((print) => !known.has(print));
    const bound = await learnSystemBinding(c);
    const config = bound ?? c.config;
    const taught = bound
      ? '; this route binds thinking to the system prompt: blocks produced under another one are left out from now on'
      : '';
    if (!fingerprints.length) {
      return {
        config,
        rejected: [...c.rejected],
        stripAllThinking: true,
        log: `thinking signature rejected on ${c.prepared.routeKey} and nothing to fingerprint${taught}; retrying once without thinking`,
        learned: { kind: 'strip-thinking', fields: [] },
      };
    }
    return {
      config: await persistRejectedThinking(c.store, c.sessionId, config, fingerprints),
      rejected: [...c.rejected],
      stripAllThinking: false,
      log: `thinking signature rejected on ${c.prepared.routeKey}: remembered ${fingerprints.length} block fingerprint(s)${taught}; retrying once without them`,
      learned: { kind: 'thinking-fingerprints', fields: fingerprints.map((print) => print.slice(0, 12)) },
    };
  },
};

/** SPEC §12: `invalid_encrypted_content` turns encrypted reasoning replay off for the route key in this session. */
const ENCRYPTED_REPLAY_OFF: RecoveryRow = {
  name: 'encrypted-replay-off',
  classify: (c) => isInvalidEncryptedContentError(c.body),
  async learn(c) {
    if (encryptedReplayOffRoutes(c.config).includes(c.prepared.routeKey)) return null;
    return {
      config: await persistEncryptedReplayOff(c.store, c.sessionId, c.config, c.prepared.routeKey),
      rejected: [...c.rejected],
      stripAllThinking: false,
      log: `encrypted reasoning rejected on ${c.prepared.routeKey} (invalid_encrypted_content): no longer replaying encrypted reasoning on this route for this session; retrying once`,
      learned: { kind: 'encrypted-replay-off', fields: ['encrypted_content'] },
    };
  },
};

/**
 * SPEC §24.7: a 4xx naming `context_management`, answered to a request that carried it, turns
 * native compaction off for the route key in this session and retries once without it (the
 * local compactor stays armed). Already off: surface the error.
 */
const NATIVE_COMPACTION_OFF: RecoveryRow = {
  name: 'native-compaction-off',
  classify: (c) => c.prepared.body['context_management'] !== undefined && c.body.includes('context_management'),
  async learn(c) {
    if (nativeCompactionOffRoutes(c.config).includes(c.prepared.routeKey)) return null;
    return {
      config: await persistNativeCompactionOff(c.store, c.sessionId, c.config, c.prepared.routeKey),
      rejected: [...c.rejected],
      stripAllThinking: false,
      log: `context_management rejected on ${c.prepared.routeKey}: native compaction off for this route in this session; retrying once without it`,
      learned: { kind: 'native-compaction-off', fields: ['context_management'] },
    };
  },
};

/** The provider message of a Bedrock error body (`{"message": …}`), else the text itself. */
function bedrockMessageOf(body: string): string {
  try {
    const parsed: unknown = JSON.parse(body);
    const message = (parsed as { message?: unknown } | null)?.message;
    return typeof message === 'string' ? message : body;
  } catch {
    return body;
  }
}

/**
 * SPEC §10 self-heal: a Converse `ValidationException` (HTTP 400) about redacted or encrypted
 * content. The retry drops every redacted block, drops assistant turns left empty and merges the
 * user turns that become adjacent; nothing is persisted (the next request tries the blobs again).
 */
const BEDROCK_REDACTED: RecoveryRow = {
  name: 'bedrock-redacted',
  classify: (c) =>
    c.status === 400 &&
    c.prepared.body['messages'] !== undefined &&
    isBedrockRedactedRejection(undefined, bedrockMessageOf(c.body)),
  async learn(c) {
    const heal = stripBedrockRedactedReasoning(c.prepared.body);
    if (heal.removedBlocks === 0) return null;
    return {
      config: c.config,
      rejected: [...c.rejected],
      stripAllThinking: false,
      rewriteBody: (body) => stripBedrockRedactedReasoning(body).body,
      log: `Bedrock refused redacted reasoning on ${c.prepared.routeKey}; retrying once without ${heal.removedBlocks} redacted block(s)`,
      learned: { kind: 'redacted-stripped', fields: ['redactedContent'] },
    };
  },
};

/**
 * A 4xx refusing the reasoning effort sent (a value the model does not take, the parameter
 * itself, or the off switch on a model that always thinks; replay-effort-rejection.ts): the
 * refused levels are learned per (provider, host, model) like SPEC §13.3 (session record and
 * store-wide verdict, `effort:LEVEL`) and the request is retried once with the nearest accepted
 * level, or without an effort when none is left. Nothing new refused: surface the error.
 */
const EFFORT_VALUE: RecoveryRow = {
  name: 'effort-value',
  classify: (c) => c.reasoning.enabled && c.reasoning.effort !== undefined && looksLikeEffortRejection(c.body),
  async learn(c) {
    const sent = c.reasoning.effort;
    const vocabulary = effortVocabularyFor(c.profile.route, c.profile);
    if (sent === undefined || vocabulary === undefined) return null;
    const refused = effortRejection(c.body, sent, vocabulary.values);
    const fresh = refused.filter((level) => !c.rejectedEfforts.includes(level));
    if (!fresh.includes(sent)) return null;
    const all = REASONING_EFFORTS.filter((level) => c.rejectedEfforts.includes(level) || fresh.includes(level));
    const config = await persistRejectedEfforts(c.store, c.sessionId, c.config, c.profile, all, c.body);
    const next = nearestAcceptedEffort(sent, all);
    const wire = `${vocabulary.parameter} ${JSON.stringify(vocabulary.values[sent])}`;
    return {
      config,
      rejected: [...c.rejected],
      rejectedEfforts: all,
      stripAllThinking: false,
      log:
        `learned: ${c.prepared.routeKey} refuses reasoning effort ${sent} (${wire}); ` +
        `retrying once with ${next === undefined ? 'no effort' : `effort ${next}`}`,
      learned: { kind: 'effort', fields: fresh },
    };
  },
};

/**
 * SPEC §26.2: a 4xx naming a carrier the route requires (WIRE §8: "missing a `thought_signature`",
 * "Expected `thinking` … but found `tool_use`"), or refusing the placeholder sent in its stead.
 * The first time a signature is named missing and no placeholder went out, the route learns the
 * placeholder; otherwise it learns to send the current turn's steps that lack their carrier as
 * text. Learned per (provider, host, model), in the session and store-wide, so the same 400 is
 * never paid twice; nothing new to learn surfaces the error.
 */
const REQUIRED_CARRIER: RecoveryRow = {
  name: 'required-carrier',
  classify: (c) => classifyRequiredCarrierRejection(c.body, c.prepared.body) !== null,
  async learn(c) {
    const rejection = classifyRequiredCarrierRejection(c.body, c.prepared.body);
    const placeholderFirst = rejection === 'thought-signature' && c.standIn === undefined;
    const next: StandInKind = placeholderFirst ? 'placeholder' : 'text';
    if (c.standIn === 'text' || (next === 'placeholder' && c.standIn === 'placeholder')) return null;
    const config = await persistStandIn(c.store, c.sessionId, c.config, c.profile, next, c.body);
    const carrier = rejection === 'signed-thinking' ? 'signed thinking' : 'its thought signature';
    return {
      config,
      rejected: [...c.rejected],
      stripAllThinking: false,
      log:
        next === 'placeholder'
          ? `${c.prepared.routeKey} requires a thought signature on every step: learned to send Google's placeholder where a step has none; retrying once`
          : `${c.prepared.routeKey} refused a step without ${carrier}${rejection === 'placeholder-refused' ? ' (and the placeholder)' : ''}: learned to send such steps of the current turn as text; retrying once`,
      learned: { kind: 'stand-in', fields: [next] },
    };
  },
};

/**
 * The recoveries, keyed by wire API. For a 4xx, the rows of the route's API are tried in order;
 * the first whose `classify` is true decides (its `learn` returning null surfaces the error).
 * Each recovery retries once; the runtime logs one WARN line and emits one event for it.
 *
 * To add a recovery: write a {@link RecoveryRow} above (`classify` pure and cheap; `learn`
 * persists only through runtime-route-memory.ts and returns null when there is nothing new to
 * learn, so a retry never loops), cite its SPEC § in its comment, add it to its API's list
 * here, and prove it with an e2e test against the API's emulator.
 */
export const RECOVERIES: Readonly<Record<WireApi, readonly RecoveryRow[]>> = {
  chat_completions: [FIELD_VERDICT, RELAY_SIGNATURE, REQUIRED_CARRIER, EFFORT_VALUE],
  anthropic_messages: [
    ANTHROPIC_BINDING_CONTROLS,
    ANTHROPIC_COMPACTION_OFF,
    ANTHROPIC_SIGNATURE,
    ANTHROPIC_THINKING_MODIFIED,
    ANTHROPIC_EMPTY_THINKING,
    ANTHROPIC_THINKING_FIRST,
    DEEPSEEK_THINKING_REQUIRED,
    EFFORT_VALUE,
  ],
  codex_responses: [NATIVE_COMPACTION_OFF, ENCRYPTED_REPLAY_OFF, EFFORT_VALUE],
  bedrock_converse: [BEDROCK_REDACTED, EFFORT_VALUE],
  gemini: [GEMINI_SIGNATURE_REFUSED, EFFORT_VALUE],
};

/**
 * After the one retry failed too: what a required-carrier rejection of the retry teaches is still
 * learned (the placeholder refused → text), for the next request; nothing is retried (SPEC §26.2).
 */
export async function learnFromFailedRetry(
  error: HermesError,
  prepared: PreparedRequest,
  profile: RouteProfile,
  state: Omit<RecoveryContext, 'body' | 'status' | 'prepared' | 'profile'>,
): Promise<Recovery | null> {
  if (!(error instanceof ApiError) || error.status < 400 || error.status >= 500) return null;
  if (profile.route.api !== 'chat_completions') return null;
  const context: RecoveryContext = { ...state, body: errorBodyOf(error), status: error.status, prepared, profile };
  if (!REQUIRED_CARRIER.classify(context)) return null;
  const recovery = await REQUIRED_CARRIER.learn(context);
  return recovery && { row: REQUIRED_CARRIER.name, ...recovery };
}

/**
 * Decides whether a 4xx can be fixed by one retry (see {@link RECOVERIES}); a refused thought
 * signature in the middle of a stream counts as its 400 (WIRE §8) when the caller says no
 * content was `delivered` yet (the default assumes some was). Null means: surface the error.
 */
export async function recoverFromError(
  error: HermesError,
  prepared: PreparedRequest,
  profile: RouteProfile,
  state: Omit<RecoveryContext, 'body' | 'status' | 'prepared' | 'profile'>,
  delivered = true,
): Promise<Recovery | null> {
  const failure = recoverableFailure(error, delivered);
  if (!failure) return null;
  const context: RecoveryContext = { ...state, body: failure.body, status: failure.status, prepared, profile };
  const row = (RECOVERIES[profile.route.api] ?? []).find((candidate) => candidate.classify(context));
  if (!row) return null;
  const recovery = await row.learn(context);
  if (!recovery) return null;
  return { row: row.name, ...recovery, log: failure.midStream ? midStreamLog(recovery.log) : recovery.log };
}
