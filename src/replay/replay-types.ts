import type { JsonObject } from '../core/json.js';

/** The three chat-completions reasoning carriers (SPEC §1). */
export type Carrier = 'reasoning_content' | 'reasoning' | 'reasoning_details';

/** Every carrier, in SPEC order. */
export const CARRIERS: readonly Carrier[] = ['reasoning_content', 'reasoning', 'reasoning_details'];

/**
 * Verdict route key (SPEC §3.3): lower-cased trimmed provider, hostname of the base URL (or ""),
 * exact trimmed model. Its string form is `provider|host|model`.
 */
export interface RouteKey {
  provider: string;
  host: string;
  model: string;
}

/**
 * What happened to one carrier (or private-record field) of one message on its way to the wire:
 * `kept` (sent as stored), `padded` (must-echo pad), `lifted` (moved onto the wire from a private
 * record), `covered` (not sent because the route reads the same text in another carrier that is
 * sent: a copy, nothing lost), `dropped` (not sent, and not elsewhere), `restored` (a front door
 * took the message's carriers from its mirrored session, SPEC §26.1).
 */
export type DecisionAction = 'kept' | 'padded' | 'lifted' | 'covered' | 'dropped' | 'restored';

/**
 * One replay decision (SPEC §23.3). Values are never recorded here, only sizes, so decisions
 * can be logged at INFO.
 */
export interface CarrierDecision {
  /** Index of the message in the history that was replayed. */
  messageIndex: number;
  /** Carrier or field name: `reasoning_content`, `reasoning_details`, `reasoning_opaque`, `extra_content`, `thought_signature`, `signature`, ... */
  field: string;
  action: DecisionAction;
  /** Why, in a few words: "route reads it", "strict route", "not read by route", "learned verdict", "foreign origin", "must-echo pad", ... */
  reason: string;
  /** UTF-8 byte size of the value concerned, when there was one. */
  bytes?: number;
}

/**
 * A user route row from `config.yaml` (SPEC §23.4), matched before the built-in table.
 * A row matches when the provider id (lower-cased) is listed or the base URL host matches.
 */
export interface RouteOverride {
  providers?: string[];
  hosts?: string[];
  /** Carriers this route reads. */
  carriers: Carrier[];
  /** Treat the route as must-echo (SPEC §4). */
  mustEcho?: boolean;
  /** Extra request-body keys merged when reasoning is enabled (keep-thinking flags, SPEC §8). */
  keepThinking?: JsonObject;
}
