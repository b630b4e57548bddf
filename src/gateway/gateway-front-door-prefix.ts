import type { AssistantMessage, Message } from '../core/message.js';
import type { OriginStamp, WireApi } from '../core/origin.js';
import type { CarrierDecision } from '../runtime/runtime-client-turn.js';
import type { SessionCopy, TranslatedInput, TranslatedMessage, TranslatedPrefix } from './gateway-front-door-copies.js';
import { openClientHistory, type ClientHistory } from './gateway-front-door-handles.js';
import { restoreFromSession, visibleKey, type RestoreStart, type StoredTurns } from './gateway-front-door-restore.js';
import type { HandleKeyring } from './gateway-handle-keys.js';
import type { HandlePurpose } from './gateway-handle-seal.js';

/**
 * A front-door history translated once per message (SPEC §26.7): handles opened (SPEC §25.6) and
 * turns restored from the session's copy (SPEC §26.1) for the messages the last request of the
 * session did not carry as it is now; the prefix it did keeps the last request's result
 * (gateway-front-door-copies.ts). The outcome — the history's messages and the decisions, in the
 * order a full translation makes them (every handle decision, then every restoration decision) —
 * is the same as translating the whole history anew:
 *
 * - a message is reused only when it and every message before it came in as before (as parsed:
 *   the same values, keys in the same order), under the same handle purpose, wire API and origin;
 * - restoration continues from the stored turn the reused prefix reached. The stored copy only
 *   grows between requests (any other change reads the session again and drops the translation);
 *   a grown copy could match a turn that matched nothing before, so reuse stops at the first
 *   such turn that matches one of the stored turns added since.
 */

/** What the translation needs of the route and session. */
export interface TranslationInput {
  history: ClientHistory;
  /** The door's handle field, or null when it returns none (no handles to open). */
  purpose: HandlePurpose | null;
  keyring: HandleKeyring;
  route: { api: WireApi; origin: OriginStamp };
  /** The session's copy: its last translation is reused (null: stateless, or restored from another session). */
  copy: SessionCopy | null;
  /** The stored turns to restore from, and the session they come from when it is not the request's (a fork). */
  source: { turns: StoredTurns; origin?: string } | null;
}

/** The decisions of a translated history. */
export interface Translation {
  opened: CarrierDecision[];
  restored: CarrierDecision[];
  /** Messages taken from the last request's translation. */
  reused: number;
  /** This translation, to keep with the session's copy (undefined without one). */
  prefix: TranslatedPrefix | undefined;
}

/** Translates `input.history` in place (see the file comment). */
export async function translateClientHistory(input: TranslationInput): Promise<Translation> {
  const { history, purpose, copy, source } = input;
  // The keys are read first: handles opened under another set of keys (one retired since) are
  // opened again, so a retired key opens nothing from the moment it is retired (SPEC §23.3).
  const refreshed = purpose !== null && copy !== null;
  if (refreshed) await input.keyring.refresh();
  const facts = `${purpose ?? ''}\n${input.route.api}\n${JSON.stringify(input.route.origin)}\n${input.keyring.generation}`;
  const earlier = copy && source && copy.translated?.facts === facts ? copy.translated : undefined;
  const grown = earlier !== undefined && earlier.storedTurns !== source?.turns.turns.length;
  let reused = 0;
  while (earlier && reused < history.messages.length) {
    const previous = earlier.messages[reused];
    if (!previous || !sameInput(previous, history, reused)) break;
    if (grown && previous.unmatched && source && matchesLater(previous, source.turns, earlier.storedTurns)) break;
    history.messages[reused] = previous.message;
    reused += 1;
  }
  // The rest as parsed, before opening and restoring replace them.
  const inputs: TranslatedInput[] = [];
  if (copy && source) {
    for (let index = reused; index < history.messages.length; index += 1) {
      inputs.push({ message: history.messages[index] as Message, echo: history.echoes.get(index) });
    }
  }
  const kept = earlier?.messages.slice(0, reused) ?? [];
  const opened = kept.flatMap((message) => message.opened);
  if (purpose !== null) {
    opened.push(...(await openClientHistory(history, purpose, input.keyring, input.route, reused, refreshed)));
  }
  const restored = kept.flatMap((message) => message.restored);
  if (!source) return { opened, restored, reused, prefix: undefined };
  const start: RestoreStart = { from: reused, nextStoredTurn: kept.at(-1)?.nextStoredTurn ?? 0 };
  const progress: { next: number; unmatched: boolean }[] = [];
  restored.push(
    ...restoreFromSession(history, source.turns, opened, source.origin, start, (index, next, unmatched) => {
      progress[index] = { next, unmatched };
    }),
  );
  if (!copy) return { opened, restored, reused, prefix: undefined };
  const openedAt = byMessage(opened, reused);
  const restoredAt = byMessage(restored, reused);
  const messages: TranslatedMessage[] = kept;
  for (let index = reused; index < history.messages.length; index += 1) {
    messages.push({
      input: inputs[index - reused] as TranslatedInput,
      message: history.messages[index] as Message,
      opened: openedAt.get(index) ?? [],
      restored: restoredAt.get(index) ?? [],
      nextStoredTurn: progress[index]?.next ?? start.nextStoredTurn,
      unmatched: progress[index]?.unmatched ?? false,
    });
  }
  return { opened, restored, reused, prefix: { facts, storedTurns: source.turns.turns.length, messages } };
}

/**
 * Whether a turn no stored turn matched matches one the session learned since (a stored turn
 * at `from` or later): only those can change its outcome.
 */
function matchesLater(translated: TranslatedMessage, stored: StoredTurns, from: number): boolean {
  const key = visibleKey(translated.message as AssistantMessage);
  return stored.keys.indexOf(key, Math.max(from, translated.nextStoredTurn)) >= 0;
}

/** The decisions of each message from position `from` on. */
function byMessage(decisions: readonly CarrierDecision[], from: number): Map<number, CarrierDecision[]> {
  const grouped = new Map<number, CarrierDecision[]>();
  for (const decision of decisions) {
    const index = decision.messageIndex;
    if (index < from) continue;
    const list = grouped.get(index);
    if (list) list.push(decision);
    else grouped.set(index, [decision]);
  }
  return grouped;
}

/**
 * Whether message `index` of `history` (with its echo) came in as `previous` did. A message the
 * client repeats is most often the very object the last request parsed (gateway-front-door-body.ts
 * keeps repeated elements), its echo too, and then nothing needs comparing. Equal values found by
 * comparing are kept as this request's objects from now on, so the next request, which repeats
 * these objects, finds them the same without comparing.
 */
function sameInput(previous: TranslatedMessage, history: ClientHistory, index: number): boolean {
  const message = history.messages[index] as Message;
  const echo = history.echoes.get(index);
  if (previous.input.message === message && previous.input.echo === echo) return true;
  const input: TranslatedInput = { message, echo };
  if (!sameJson(previous.input, input)) return false;
  previous.input = input;
  return true;
}

/**
 * Whether two parsed JSON values would serialize to the same text: equal values, keys in the
 * same order (a key holding `undefined` counts as absent). Strings are compared whole, natively:
 * a long history is mostly long strings (text, signatures), so this costs far less than
 * serializing it.
 */
export function sameJson(left: unknown, right: unknown): boolean {
  if (left === right) return true;
  if (typeof left !== 'object' || typeof right !== 'object' || left === null || right === null) return false;
  if (Array.isArray(left)) {
    if (!Array.isArray(right) || left.length !== right.length) return false;
    for (let index = 0; index < left.length; index += 1) if (!sameJson(left[index], right[index])) return false;
    return true;
  }
  if (Array.isArray(right)) return false;
  const leftKeys = definedKeys(left as Record<string, unknown>);
  const rightKeys = definedKeys(right as Record<string, unknown>);
  if (leftKeys.length !== rightKeys.length) return false;
  for (let index = 0; index < leftKeys.length; index += 1) {
    const key = leftKeys[index] as string;
    if (key !== rightKeys[index]) return false;
    if (!sameJson((left as Record<string, unknown>)[key], (right as Record<string, unknown>)[key])) return false;
  }
  return true;
}

function definedKeys(record: Record<string, unknown>): string[] {
  return Object.keys(record).filter((key) => record[key] !== undefined);
}
