import type { JsonObject } from '../core/json.js';
import type { AssistantMessage, Message } from '../core/message.js';
import type { OriginStamp, WireApi } from '../core/origin.js';
import type { CarrierDecision } from '../runtime/runtime-client-turn.js';
import {
  droppedDecision,
  handleField,
  openedDecision,
  openHandle,
  restoreCarriers,
  type OpenedHandle,
} from './gateway-handle-carriers.js';
import type { HandleKeyring } from './gateway-handle-keys.js';
import { describeHandleFailure, parseHandle, type HandlePurpose } from './gateway-handle-seal.js';

/**
 * Turning a client's history back into stored history (SPEC §25.6): every assistant turn the
 * client echoed gets the carriers of its handle back, so the request is built exactly as for a
 * stored session (origin scoping, SPEC §23.2, does the rest). A handle that does not open —
 * another key, altered, truncated, `null`, `""`, moved from another turn — is dropped with a
 * decision (`--explain`, the inspector, the request log line), never an error; the readable
 * reasoning the client showed still travels as `reasoning` (no origin: the §5–§12 rules decide).
 *
 * A value that is not a gateway handle at all is a provider's own blob (a client that talked to
 * Anthropic or OpenAI directly before): on a route of that wire API it passes through verbatim,
 * stamped with the route's origin (a wrong issuer is then the provider's 4xx, which the recovery
 * rows of SPEC §9.4 / §12 learn from); anywhere else it is dropped.
 */

/** One reasoning carrier an assistant turn came back with. */
export interface EchoedReasoning {
  /** The field it came in, for decisions (`content[0].signature`, `reasoning.encrypted_content`). */
  field: string;
  /** The echoed value as sent (a handle, a provider blob, `""`, `null`, absent). */
  value: unknown;
  /** Readable reasoning the client showed with it (thinking text, summary text). */
  text: string;
}

/** What a client sent for one assistant turn besides its visible text and calls. */
export interface EchoedTurn {
  reasoning: EchoedReasoning[];
  /**
   * The turn as the client sent it in the provider's own wire shape (Anthropic content blocks,
   * Responses reasoning items), for the pass-through of provider blobs on that provider's route.
   */
  native?: { api: WireApi; key: 'anthropic_content_blocks' | 'codex_reasoning_items'; entries: JsonObject[] };
}

/** A parsed client history: canonical messages, and the echoes of each assistant turn by index. */
export interface ClientHistory {
  messages: Message[];
  echoes: Map<number, EchoedTurn>;
}

/**
 * Adds a system (or developer) message of the client's history. Before the conversation starts
 * it is a system message (the system prompt). After that — Claude Code sends its environment, a
 * `<total_tokens>` note after each tool result and "You are powered by the model …" on a switch
 * as `role: "system"` messages among the turns — its text joins the user side of the
 * conversation where it stands: Anthropic, Bedrock and Gemini carry one top-level system prompt,
 * which such notes would change on every request (Anthropic refuses the thinking signatures
 * bound to the old prompt, WIRE §2.6b, and prompt caches miss), and many chat templates refuse a
 * system message that is not first. Appended to a user message just before it, else a user
 * message of its own.
 */
export function addClientSystemText(history: ClientHistory, text: string): void {
  const messages = history.messages;
  if (messages.every((message) => message.role === 'system')) {
    messages.push({ role: 'system', content: text });
    return;
  }
  if (text === '') return;
  const previous = messages[messages.length - 1];
  if (previous?.role !== 'user') {
    messages.push({ role: 'user', content: text });
    return;
  }
  const parts = typeof previous.content === 'string' ? [{ type: 'text', text: previous.content }] : previous.content;
  messages[messages.length - 1] = { ...previous, content: [...parts, { type: 'text', text }] };
}

/** What the route means for blobs that are not handles. */
export interface HandleRouteFacts {
  api: WireApi;
  origin: OriginStamp;
}

/**
 * Opens every handle of `history` in place (of the messages from position `from` on); returns
 * the decisions (SPEC §23.3). The keys are read from the store first, so a key retired before
 * this request opens none of its handles.
 */
export async function openClientHistory(
  history: ClientHistory,
  purpose: HandlePurpose,
  keyring: HandleKeyring,
  route: HandleRouteFacts,
  from = 0,
  refreshed = false,
): Promise<CarrierDecision[]> {
  const decisions: CarrierDecision[] = [];
  // The keys are read once per request: `refreshed` when the caller read them already.
  if (history.echoes.size > 0 && !refreshed) await keyring.refresh();
  for (const [index, turn] of history.echoes) {
    if (index < from) continue;
    const echoed = history.messages[index] as AssistantMessage;
    history.messages[index] = await openTurn(echoed, turn, index, purpose, keyring, route, decisions);
  }
  return decisions;
}

async function openTurn(
  echoed: AssistantMessage,
  turn: EchoedTurn,
  index: number,
  purpose: HandlePurpose,
  keyring: HandleKeyring,
  route: HandleRouteFacts,
  decisions: CarrierDecision[],
): Promise<AssistantMessage> {
  const readable = turn.reasoning.map((entry) => entry.text).filter((text) => text.trim() !== '');
  const blobs = turn.reasoning.filter((entry) => parseHandle(entry.value) === 'not-a-handle');
  // A turn whose every carrier is a provider blob, on that provider's wire API: verbatim.
  if (turn.native && blobs.length > 0 && blobs.length === turn.reasoning.length && turn.native.api === route.api) {
    for (const entry of blobs) {
      decisions.push({
        messageIndex: index,
        field: handleField(entry.field),
        action: 'kept',
        reason: 'a provider blob, not a gateway handle: passed through on its own wire API',
        bytes: Buffer.byteLength(String(entry.value), 'utf8'),
      });
    }
    const passed: AssistantMessage = { ...echoed, [turn.native.key]: turn.native.entries, origin: { ...route.origin } };
    if (readable.length > 0) passed.reasoning = readable.join('\n\n');
    return passed;
  }
  let restored: AssistantMessage | null = null;
  for (const entry of turn.reasoning) {
    const opened: OpenedHandle = restored
      ? { ok: false, reason: 'a second handle on one assistant turn' }
      : parseHandle(entry.value) === 'not-a-handle'
        ? {
            ok: false,
            reason: `${describeHandleFailure('not-a-handle')}: a provider blob goes only to its own wire API`,
          }
        : await openHandle(entry.value, purpose, keyring);
    if (!opened.ok) {
      decisions.push(droppedDecision(index, entry.field, opened.reason, entry.value));
      continue;
    }
    const result = restoreCarriers(echoed, opened.carriers);
    if ('mismatch' in result) {
      decisions.push(droppedDecision(index, entry.field, result.mismatch, entry.value));
      continue;
    }
    restored = result.message;
    decisions.push(openedDecision(index, entry.field, opened.keyId, Buffer.byteLength(String(entry.value), 'utf8')));
  }
  if (restored) return restored;
  return readable.length > 0 ? { ...echoed, reasoning: readable.join('\n\n') } : echoed;
}

/**
 * The messages of a history with the readable reasoning each turn showed, handles not opened:
 * what a token estimate prices (SPEC §15: opaque bytes cost nothing).
 */
export function readableHistory(history: ClientHistory): Message[] {
  return history.messages.map((message, index) => {
    const echo = history.echoes.get(index);
    if (!echo || message.role !== 'assistant') return message;
    const kept = Object.isFrozen(message) ? readableCopies.get(message) : undefined;
    if (kept?.echo === echo) return kept.readable;
    const text = echo.reasoning
      .map((entry) => entry.text)
      .filter((entry) => entry !== '')
      .join('\n\n');
    if (text === '') return message;
    const readable: AssistantMessage = { ...message, reasoning: text };
    if (!Object.isFrozen(message) || !Object.isFrozen(echo)) return readable;
    // A repeated turn (its message and echo frozen) gets the same frozen copy on every request,
    // so the prices kept per frozen message (runtime-kept-prices.ts) hold for it too.
    readableCopies.set(message, { echo, readable: Object.freeze(readable) });
    return readable;
  });
}

/** The readable copy of a frozen assistant message, for the frozen echo it was made with. */
const readableCopies = new WeakMap<Message, { echo: EchoedTurn; readable: AssistantMessage }>();
