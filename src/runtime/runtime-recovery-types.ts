import type { JsonObject } from '../core/json.js';
import type { ReasoningEffort, ReasoningOptions } from '../core/reasoning-options.js';
import type { Carrier, RouteProfile, StandInKind } from '../replay/replay-route-profile.js';
import type { SessionStore } from '../storage/session-store.js';
import type { PreparedRequest } from '../transports/shared/transport.js';

/**
 * The shapes of the recovery table (runtime-recovery.ts `RECOVERIES`), apart so the rows of each
 * wire family (runtime-recovery-anthropic.ts, runtime-recovery-gemini.ts) can name them.
 */

/** What one failed request teaches before its single retry. */
export interface Recovery {
  /** The {@link RecoveryRow.name} that recovered. */
  row: string;
  /** The session model config after persisting what was learned. */
  config: JsonObject;
  /** Carriers to stop sending (chat-completions verdicts). */
  rejected: Carrier[];
  /** Effort levels the route refuses, when this recovery learned some: the retry sends the nearest other. */
  rejectedEfforts?: ReasoningEffort[];
  /** Strip every thinking block from the retry only (nothing fingerprintable, SPEC §9.4). */
  stripAllThinking: boolean;
  /** Rewrites the retry's prepared body (Bedrock redacted-content self-heal, SPEC §10); nothing persisted. */
  rewriteBody?: (body: JsonObject) => JsonObject;
  /** WARNING line for the logs. */
  log: string;
  /** Structured fields for the log line and the renderer. */
  learned: {
    kind:
      | 'verdict'
      | 'thinking-fingerprints'
      | 'strip-thinking'
      | 'encrypted-replay-off'
      | 'native-compaction-off'
      | 'redacted-stripped'
      | 'effort'
      | 'stand-in'
      | 'request-field'
      | 'thinking-repaired';
    fields: string[];
  };
}

/** Everything a recovery row sees about the failed request. */
export interface RecoveryContext {
  /** The provider's error text (the body, else the message). */
  body: string;
  /** HTTP status of the 4xx. */
  status: number;
  prepared: PreparedRequest;
  profile: RouteProfile;
  store: SessionStore;
  sessionId: string;
  /** The session model_config before this recovery. */
  config: JsonObject;
  /** Carriers already rejected on this route. */
  rejected: readonly Carrier[];
  /** The reasoning the failed request was sent with (its effort is what an effort refusal names). */
  reasoning: ReasoningOptions;
  /** Effort levels already refused on this route. */
  rejectedEfforts: readonly ReasoningEffort[];
  /** The stand-in already learned for this route (SPEC §26.2), if any. */
  standIn?: StandInKind | undefined;
}

/**
 * One recovery: `classify` says whether a 4xx is this row's (cheap, no I/O); `learn` persists
 * what it teaches through runtime-route-memory.ts and says how to retry, or returns null to
 * surface the error (nothing new to learn prevents loops).
 */
export interface RecoveryRow {
  /** Short name, logged with the WARN line. */
  name: string;
  classify(context: RecoveryContext): boolean;
  learn(context: RecoveryContext): Promise<Omit<Recovery, 'row'> | null>;
}
