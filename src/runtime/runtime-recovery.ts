import { ApiError, type HermesError } from '../core/errors.js';
import type { JsonObject, JsonValue } from '../core/json.js';
import {
  ANTHROPIC_REJECTED_THINKING_KEY,
  fingerprintSignedBlocks,
  isThinkingSignatureError,
  readRejectedThinking,
  withRejectedThinking,
} from '../replay/anthropic-signature-memory.js';
import { relaySignatureFingerprints } from '../replay/replay-relay-signature.js';
import type { Carrier, RouteProfile } from '../replay/replay-route-profile.js';
import type { SessionStore } from '../storage/session-store.js';
import type { PreparedRequest } from '../transports/shared/transport.js';
import { isInvalidEncryptedContentError } from '../transports/responses/responses-errors.js';
import { errorBodyOf } from './runtime-errors.js';
import { fieldsToLearn, persistVerdict } from './runtime-verdicts.js';

/** model_config key listing route keys whose encrypted Responses reasoning is no longer replayed (SPEC §12). */
export const ENCRYPTED_REPLAY_OFF_KEY = 'responses_encrypted_replay_off';

/** What one failed request teaches before its single retry. */
export interface Recovery {
  /** The session model config after persisting what was learned. */
  config: JsonObject;
  /** Carriers to stop sending (chat-completions verdicts). */
  rejected: Carrier[];
  /** Strip every thinking block from the retry only (nothing fingerprintable, SPEC §9.4). */
  stripAllThinking: boolean;
  /** WARNING line for the logs. */
  log: string;
  /** Structured fields for the log line and the renderer. */
  learned: { kind: 'verdict' | 'thinking-fingerprints' | 'strip-thinking' | 'encrypted-replay-off'; fields: string[] };
}

/**
 * Decides whether a 4xx can be fixed by one retry and persists what it teaches: unknown-field
 * verdicts on chat-completions (SPEC §13), rejected Anthropic signatures (SPEC §9.4), and the
 * Responses `invalid_encrypted_content` kill switch (SPEC §12). Null means: surface the error.
 */
export async function recoverFromError(
  error: HermesError,
  prepared: PreparedRequest,
  profile: RouteProfile,
  state: {
    store: SessionStore;
    sessionId: string;
    config: JsonObject;
    rejected: readonly Carrier[];
  },
): Promise<Recovery | null> {
  if (!(error instanceof ApiError) || error.status < 400 || error.status >= 500) return null;
  const body = errorBodyOf(error);
  const route = profile.route;
  if (route.api === 'chat_completions') {
    const fields = fieldsToLearn(profile, body, prepared.carriersSent, state.rejected);
    if (!fields.length) return relaySignatureRecovery(body, prepared, state);
    const config = await persistVerdict(state.store, state.sessionId, state.config, profile, fields, body);
    return {
      config,
      rejected: [...new Set([...state.rejected, ...fields])],
      stripAllThinking: false,
      log: `learned verdict: ${prepared.routeKey} rejects reasoning fields ${fields.join(', ')}; retrying once without them`,
      learned: { kind: 'verdict', fields },
    };
  }
  if (route.api === 'anthropic_messages' && isThinkingSignatureError(body)) {
    if (!profile.anthropic.signedReplay) return null;
    const known = new Set(readRejectedThinking(state.config));
    const fingerprints = fingerprintSignedBlocks(prepared.body).filter((fingerprint) => !known.has(fingerprint));
    if (!fingerprints.length) {
      // Nothing fingerprintable: strip all thinking from this retry only; persist nothing.
      return {
        config: state.config,
        rejected: [...state.rejected],
        stripAllThinking: true,
        log: `thinking signature rejected on ${prepared.routeKey} and nothing to fingerprint; retrying once without thinking`,
        learned: { kind: 'strip-thinking', fields: [] },
      };
    }
    const next = withRejectedThinking(state.config, fingerprints);
    const config = await state.store.patchModelConfig(state.sessionId, {
      [ANTHROPIC_REJECTED_THINKING_KEY]: next[ANTHROPIC_REJECTED_THINKING_KEY] as JsonValue,
    });
    return {
      config,
      rejected: [...state.rejected],
      stripAllThinking: false,
      log: `thinking signature rejected on ${prepared.routeKey}: remembered ${fingerprints.length} block fingerprint(s); retrying once without them`,
      learned: { kind: 'thinking-fingerprints', fields: fingerprints.map((fingerprint) => fingerprint.slice(0, 12)) },
    };
  }
  if (route.api === 'codex_responses' && isInvalidEncryptedContentError(body)) {
    const off = encryptedReplayOffRoutes(state.config);
    if (off.includes(prepared.routeKey)) return null;
    const config = await state.store.patchModelConfig(state.sessionId, {
      [ENCRYPTED_REPLAY_OFF_KEY]: [...off, prepared.routeKey].sort(),
    });
    return {
      config,
      rejected: [...state.rejected],
      stripAllThinking: false,
      log: `encrypted reasoning rejected on ${prepared.routeKey} (invalid_encrypted_content): no longer replaying encrypted reasoning on this route for this session; retrying once`,
      learned: { kind: 'encrypted-replay-off', fields: ['encrypted_content'] },
    };
  }
  return null;
}

/**
 * SPEC §24.8: a chat-completions route relaying Anthropic (it was sent `reasoning_details`)
 * answering that a thinking signature is invalid: fingerprint the entries sent, persist them in
 * the session and retry once without them. Nothing new to fingerprint: surface the error.
 */
async function relaySignatureRecovery(
  body: string,
  prepared: PreparedRequest,
  state: { store: SessionStore; sessionId: string; config: JsonObject; rejected: readonly Carrier[] },
): Promise<Recovery | null> {
  if (!prepared.carriersSent.includes('reasoning_details') || !isThinkingSignatureError(body)) return null;
  const known = new Set(readRejectedThinking(state.config));
  const fingerprints = relaySignatureFingerprints(prepared.body).filter((fingerprint) => !known.has(fingerprint));
  if (!fingerprints.length) return null;
  const next = withRejectedThinking(state.config, fingerprints);
  const config = await state.store.patchModelConfig(state.sessionId, {
    [ANTHROPIC_REJECTED_THINKING_KEY]: next[ANTHROPIC_REJECTED_THINKING_KEY] as JsonValue,
  });
  return {
    config,
    rejected: [...state.rejected],
    stripAllThinking: false,
    log: `thinking signature rejected on ${prepared.routeKey}: remembered ${fingerprints.length} reasoning_details fingerprint(s); retrying once without them`,
    learned: { kind: 'thinking-fingerprints', fields: fingerprints.map((fingerprint) => fingerprint.slice(0, 12)) },
  };
}

/** Route keys whose encrypted reasoning replay is off in this session. */
export function encryptedReplayOffRoutes(config: JsonObject): string[] {
  const value = config[ENCRYPTED_REPLAY_OFF_KEY];
  return Array.isArray(value) ? value.filter((entry): entry is string => typeof entry === 'string') : [];
}
