import { isJsonObject, type JsonObject } from '../core/json.js';
import {
  dropEmptyThinking,
  fingerprintCondemnedBlocks,
  isThinkingModifiedError,
  isThinkingSignatureError,
  namedBlockPosition,
  padMissingThinking,
  THINKING_ELIDED_TEXT,
  thinkingFirst,
} from '../replay/replay-recovery.js';
import { bodyUsesCompaction } from '../replay/anthropic-compaction.js';
import type { RecoveryContext, RecoveryRow } from './runtime-recovery-types.js';
import {
  anthropicCompactionOffRoutes,
  BLOCK_BINDING_FIELD,
  persistAnthropicCompactionOff,
  persistRejectedRequestFields,
  persistRejectedThinking,
  persistThinkingBinding,
  rememberedThinkingFingerprints,
  SYSTEM_BINDING,
  thinkingBindingsFrom,
} from './runtime-route-memory.js';

/**
 * Anthropic Messages recoveries for thinking-block binding and the shape of thinking blocks
 * (SPEC §26.2, §26.4; the error texts of WIRE §8). Each row retries once; the ones that learn
 * persist through runtime-route-memory.ts, the repairs rewrite the retry's body only.
 */

/** The refused request with the route key and what to do, for the WARN line. */
function logLine(context: RecoveryContext, what: string): string {
  return `${what} on ${context.prepared.routeKey}`;
}

/**
 * SPEC §26.4: a 4xx naming `block_binding` (or the binding beta) answered to a request that declared
 * it — `thinking.adaptive.block_binding: Extra inputs are not permitted` where the beta is not
 * honoured — is learned like an unknown field: per (provider, host, model), in the session and
 * store-wide, and the request is retried once without the declaration. A binding rejection
 * ("bound to a different conversation", which names the field in its advice) is not this row's.
 */
export const ANTHROPIC_BINDING_CONTROLS: RecoveryRow = {
  name: 'anthropic-binding-controls',
  classify(c) {
    const thinking = c.prepared.body['thinking'];
    return (
      isJsonObject(thinking) &&
      thinking['block_binding'] !== undefined &&
      /block_binding|thinking-binding-controls/i.test(c.body) &&
      !isThinkingSignatureError(c.body)
    );
  },
  async learn(c) {
    const config = await persistRejectedRequestFields(
      c.store,
      c.sessionId,
      c.config,
      c.profile,
      [BLOCK_BINDING_FIELD],
      c.body,
    );
    return {
      config,
      rejected: [...c.rejected],
      stripAllThinking: false,
      log: `${logLine(c, 'thinking.block_binding refused')}: learned like an unknown field (no longer declared for this model); retrying once without it`,
      learned: { kind: 'request-field', fields: [BLOCK_BINDING_FIELD] },
    };
  },
};

/**
 * SPEC §26.4: a signature rejection naming a block Hermes sent under another `system` prompt than
 * the block was produced under (the request listed it in `systemChangedBlocks`) teaches that the
 * route binds signed thinking to the system prompt. It is learned per (provider, host, model), in
 * the session and store-wide, so later requests leave such blocks out instead of paying the 400.
 * A rejected block whose system prompt did not change, or an error naming no block, teaches
 * nothing beyond the fingerprints. Returns the session config after learning, or null.
 */
export async function learnSystemBinding(c: RecoveryContext): Promise<JsonObject | null> {
  const moved = c.prepared.systemChangedBlocks;
  const named = namedBlockPosition(c.body);
  if (!moved?.length || !named) return null;
  if (!moved.some(([message, block]) => message === named[0] && block === named[1])) return null;
  if (thinkingBindingsFrom(c.config, c.profile, null).includes(SYSTEM_BINDING)) return null;
  return persistThinkingBinding(c.store, c.sessionId, c.config, c.profile, SYSTEM_BINDING, c.body);
}

/**
 * WIRE §8 "… blocks in the latest assistant message cannot be modified": the stored copy is not the
 * block Anthropic issued (a client edited it, or it came from elsewhere), so it cannot be repaired.
 * The condemned blocks are fingerprinted and remembered (SPEC §9.4) and the request retried once
 * without them; nothing to fingerprint, without thinking.
 */
export const ANTHROPIC_THINKING_MODIFIED: RecoveryRow = {
  name: 'anthropic-thinking-modified',
  classify: (c) => isThinkingModifiedError(c.body),
  async learn(c) {
    if (!c.profile.anthropic.signedReplay) return null;
    const known = rememberedThinkingFingerprints(c.config);
    const fingerprints = fingerprintCondemnedBlocks(c.prepared.body, c.body).filter((print) => !known.has(print));
    if (!fingerprints.length) {
      return {
        config: c.config,
        rejected: [...c.rejected],
        stripAllThinking: true,
        log: `${logLine(c, 'modified thinking refused')} and nothing to fingerprint; retrying once without thinking`,
        learned: { kind: 'strip-thinking', fields: [] },
      };
    }
    return {
      config: await persistRejectedThinking(c.store, c.sessionId, c.config, fingerprints),
      rejected: [...c.rejected],
      stripAllThinking: false,
      log: `${logLine(c, 'modified thinking refused')}: remembered ${fingerprints.length} block fingerprint(s); retrying once without them`,
      learned: { kind: 'thinking-fingerprints', fields: fingerprints.map((print) => print.slice(0, 12)) },
    };
  },
};

/** A body repair as a one-retry recovery: null when the repair changes nothing (the error surfaces). */
function repairRow(
  name: string,
  pattern: RegExp,
  repair: (context: RecoveryContext) => { changed: number },
  rewrite: (body: JsonObject) => JsonObject,
  what: (changed: number) => string,
): RecoveryRow {
  return {
    name,
    classify: (c) => c.status === 400 && pattern.test(c.body),
    async learn(c) {
      const { changed } = repair(c);
      if (changed === 0) return null;
      return {
        config: c.config,
        rejected: [...c.rejected],
        stripAllThinking: false,
        rewriteBody: rewrite,
        log: `${logLine(c, what(changed))}; retrying once`,
        learned: { kind: 'thinking-repaired', fields: [name] },
      };
    },
  };
}

/** WIRE §8 "each thinking block must contain thinking": the empty blocks are left out of the retry. */
export const ANTHROPIC_EMPTY_THINKING = repairRow(
  'anthropic-empty-thinking',
  /each thinking block must contain thinking/i,
  (c) => dropEmptyThinking(c.prepared.body, THINKING_ELIDED_TEXT),
  (body) => dropEmptyThinking(body, THINKING_ELIDED_TEXT).body,
  (changed) => `empty thinking refused: leaving out ${changed} empty thinking block(s)`,
);

/** WIRE §8 "… the first block must be `thinking` or `redacted_thinking`": thinking goes first in the retry. */
export const ANTHROPIC_THINKING_FIRST = repairRow(
  'anthropic-thinking-first',
  /the first block must be `?thinking`? or `?redacted_thinking`?/i,
  (c) => thinkingFirst(c.prepared.body),
  (body) => thinkingFirst(body).body,
  (changed) => `thinking after other blocks refused: moving thinking first in ${changed} assistant turn(s)`,
);

/** The must-echo pad (SPEC §4), the stand-in for thinking DeepSeek requires back (SPEC §26.2). */
const THINKING_PAD = ' ';

/**
 * DeepSeek's Anthropic-format "The content[].thinking in the thinking mode must be passed back to
 * the API." (WIRE §8, SPEC §26.2): every tool-call turn without thinking gets the stand-in, an
 * unsigned thinking block holding the pad; when every such turn already had one, the error surfaces.
 */
export const DEEPSEEK_THINKING_REQUIRED = repairRow(
  'deepseek-thinking-required',
  /content\[\]\.thinking in the thinking mode must be passed back/i,
  (c) => padMissingThinking(c.prepared.body, THINKING_PAD),
  (body) => padMissingThinking(body, THINKING_PAD).body,
  (changed) => `thinking required back: sending the stand-in thinking block on ${changed} tool-call turn(s)`,
);

/**
 * SPEC §26.4 (like §24.7): a 4xx naming compaction answered to a request that carried a compaction
 * block (`compaction_signature_invalid`, `compaction_block_misplaced`, a beta the platform does not
 * honour) turns on-demand compaction off for the route key in this session; the retry sends the
 * block's summary as text, and later compactions are Hermes's own. Already off: surface the error.
 */
export const ANTHROPIC_COMPACTION_OFF: RecoveryRow = {
  name: 'anthropic-compaction-off',
  classify: (c) =>
    c.status < 500 &&
    bodyUsesCompaction(c.prepared.body) &&
    /compaction/i.test(c.body) &&
    !isThinkingSignatureError(c.body),
  async learn(c) {
    if (anthropicCompactionOffRoutes(c.config).includes(c.prepared.routeKey)) return null;
    return {
      config: await persistAnthropicCompactionOff(c.store, c.sessionId, c.config, c.prepared.routeKey),
      rejected: [...c.rejected],
      stripAllThinking: false,
      log: `${logLine(c, 'compaction block refused')}: on-demand compaction off for this route in this session; retrying once with its summary as text`,
      learned: { kind: 'native-compaction-off', fields: ['compaction'] },
    };
  },
};
