import type { JsonObject, JsonValue } from '../core/json.js';
import { isJsonObject } from '../core/json.js';
import type { Message } from '../core/message.js';
import type { RouteReads } from './replay-carrier-shaping.js';
import { geminiModelFamily, parseClaudeModel } from './replay-model-ids.js';
import type { DecisionAction } from './replay-types.js';

/** Where stand-in decisions are recorded (the chat lowering's decision log). */
export interface StandInDecisions {
  add(messageIndex: number, field: string, action: DecisionAction, reason: string, size: number | undefined): void;
}

/**
 * Stand-ins for carriers a route requires (SPEC §26.2). Some chat-completions routes refuse a
 * tool-call step of the current turn that comes back without its carrier: Gemini 3 through
 * Google's OpenAI compatibility wants a thought signature on the first call of every step (WIRE
 * §1.9, §8), Claude and Gemini through Copilot want the step's `reasoning_opaque` (WIRE §1.8),
 * and Claude through a relay wants the in-flight tool loop to start with signed thinking (WIRE
 * §1.7, §2.6). When the real carrier cannot be sent — another model wrote the step, a handle did
 * not open, the history was imported — the step gets a stand-in instead of a 400:
 *
 * - `placeholder`: Google's documented placeholder signature on the step's first call;
 * - `text`: the step (its calls and their results) travels as plain readable text, so no tool
 *   call lacks its carrier and nothing is silently dropped.
 *
 * Google validates signatures in the current turn only, and Anthropic requires thinking on the
 * in-flight loop only (the steps after the last user message); a placeholder still goes on every
 * step that lacks a signature, so a turn's bytes do not change once it is no longer current.
 */

/** Google's placeholder signature for a function call that has none of its own (WIRE §8). */
export const GEMINI_PLACEHOLDER_SIGNATURE = 'skip_thought_signature_validator';

/** The other placeholder value Google's thought-signatures FAQ accepts. */
export const GEMINI_PLACEHOLDER_SIGNATURE_ALTERNATE = 'context_engineering_is_the_way_to_go';

/** How a step that lacks its required carrier is sent instead. */
export type StandInKind = 'placeholder' | 'text';

/** A carrier a route requires on the tool-call steps of the current turn. */
export interface RequiredCarrier {
  /** Which carrier: the Gemini per-call signature, Copilot's opaque, or a relay's signed details. */
  carrier: 'thought_signature' | 'reasoning_opaque' | 'reasoning_details';
  /** The documented stand-in, or `text` where none is documented. */
  standIn: StandInKind;
  /** Where the requirement is documented (decision reasons cite it). */
  evidence: string;
}

/**
 * The carrier the route requires (SPEC §26.2), from the facts already resolved for it and the
 * model id; null when the route requires none. Gemini 2.x does not enforce signatures; Copilot
 * issues an opaque for Claude and Gemini models only; a relay enforces Anthropic's rule for
 * Claude models only.
 */
export function requiredCarrierFor(
  model: string,
  chat: { row: string; recordReads: RouteReads; consumesThoughtSignature: boolean },
): RequiredCarrier | null {
  const claude = parseClaudeModel(model).kind !== 'not-claude';
  const gemini = geminiModelFamily(model);
  if (chat.recordReads.copilot && (claude || gemini.family !== null)) {
    return { carrier: 'reasoning_opaque', standIn: 'text', evidence: 'WIRE §1.8' };
  }
  if (chat.consumesThoughtSignature && (gemini.generation ?? 0) >= 3) {
    return { carrier: 'thought_signature', standIn: 'placeholder', evidence: 'WIRE §1.9' };
  }
  if (chat.row === 'full' && claude) {
    return { carrier: 'reasoning_details', standIn: 'text', evidence: 'WIRE §1.7' };
  }
  return null;
}

/**
 * The requirement in force for a request: the route's own, adjusted by what a rejection taught
 * (`learned`, SPEC §26.2 recovery): `placeholder` makes a route that named a missing signature
 * get the placeholder, `text` makes it send the steps as text.
 */
export function effectiveRequirement(
  required: RequiredCarrier | null,
  learned: StandInKind | undefined,
): RequiredCarrier | null {
  if (learned === undefined) return required;
  if (required === null) {
    return learned === 'placeholder'
      ? { carrier: 'thought_signature', standIn: 'placeholder', evidence: 'learned from a rejection' }
      : { carrier: 'reasoning_details', standIn: 'text', evidence: 'learned from a rejection' };
  }
  if (learned === 'text')
    return { ...required, standIn: 'text', evidence: `${required.evidence}; placeholder refused` };
  return required;
}

/** Index of the first message of the current turn: the one after the last user message. */
export function currentTurnStart(history: readonly Message[]): number {
  for (let index = history.length - 1; index >= 0; index--) {
    if (history[index]?.role === 'user') return index + 1;
  }
  return 0;
}

/**
 * Puts stand-ins on the wire `messages` of `history` (index for index) where a tool-call step
 * lacks the carrier `required` names (text: in the current turn only); records a decision for
 * each. Wire objects are replaced, never changed in place (they may be shared by a cache).
 */
export function applyStandIns(
  history: readonly Message[],
  messages: JsonObject[],
  required: RequiredCarrier | null,
  decisions: StandInDecisions,
): void {
  if (required === null) return;
  // Placeholders go on every step that lacks a signature, so earlier turns keep the bytes they
  // were sent with (prompt caches); steps go as text only in the current turn, where they must.
  const start = required.standIn === 'placeholder' ? 0 : currentTurnStart(history);
  for (let index = start; index < history.length; index++) {
    const wire = messages[index];
    const calls = wire?.['tool_calls'];
    if (!wire || wire['role'] !== 'assistant' || !Array.isArray(calls) || calls.length === 0) continue;
    if (hasCarrier(wire, required, calls)) continue;
    if (required.standIn === 'placeholder') {
      messages[index] = withPlaceholder(wire, calls);
      decisions.add(
        index,
        'tool_calls[0].extra_content',
        'padded',
        `stand-in: Google's placeholder signature (the step has no signature of this model; ${required.evidence})`,
        GEMINI_PLACEHOLDER_SIGNATURE.length,
      );
      continue;
    }
    sendStepAsText(history, messages, index, calls);
    decisions.add(
      index,
      'tool_calls',
      'lifted',
      `sent as text: the step lacks its ${required.carrier} and the route has no stand-in (${required.evidence})`,
      undefined,
    );
  }
}

function hasCarrier(wire: JsonObject, required: RequiredCarrier, calls: JsonValue[]): boolean {
  switch (required.carrier) {
    case 'thought_signature':
      return hasSignature(calls[0]);
    case 'reasoning_opaque':
      return typeof wire['reasoning_opaque'] === 'string' && wire['reasoning_opaque'] !== '';
    case 'reasoning_details': {
      const details = wire['reasoning_details'];
      return Array.isArray(details) && details.some(isSignedDetail);
    }
  }
}

function hasSignature(call: JsonValue | undefined): boolean {
  if (!isJsonObject(call) || !isJsonObject(call['extra_content'])) return false;
  const extra = call['extra_content'];
  const google = extra['google'];
  const signature = isJsonObject(google) ? google['thought_signature'] : extra['thought_signature'];
  return typeof signature === 'string' && signature.trim() !== '';
}

function isSignedDetail(entry: JsonValue): boolean {
  if (!isJsonObject(entry)) return false;
  if (entry['type'] === 'reasoning.encrypted') return typeof entry['data'] === 'string' && entry['data'] !== '';
  return typeof entry['signature'] === 'string' && entry['signature'] !== '';
}

function withPlaceholder(wire: JsonObject, calls: JsonValue[]): JsonObject {
  const [first, ...rest] = calls;
  const call = isJsonObject(first) ? first : {};
  const signed: JsonObject = {
    ...call,
    extra_content: { google: { thought_signature: GEMINI_PLACEHOLDER_SIGNATURE } },
  };
  return { ...wire, tool_calls: [signed, ...rest] };
}

/**
 * The step at `index` as text: the assistant message says which tools it called with which
 * arguments (after its own text), and each result of those calls becomes a user message naming
 * the tool. Readable reasoning carriers stay on the assistant message; opaque ones have nothing
 * to bind to and are left out.
 */
function sendStepAsText(history: readonly Message[], messages: JsonObject[], index: number, calls: JsonValue[]): void {
  const wire = messages[index] as JsonObject;
  const names = new Map<string, string>();
  const lines: string[] = [];
  if (typeof wire['content'] === 'string' && wire['content'] !== '') lines.push(wire['content']);
  for (const call of calls) {
    if (!isJsonObject(call) || !isJsonObject(call['function'])) continue;
    const name = String(call['function']['name'] ?? 'tool');
    names.set(String(call['id'] ?? ''), name);
    lines.push(toolCallText(name, String(call['function']['arguments'] ?? '{}')));
  }
  const text: JsonObject = { role: 'assistant', content: lines.join('\n') };
  for (const key of ['reasoning_content', 'reasoning'] as const) if (wire[key] !== undefined) text[key] = wire[key];
  messages[index] = text;
  for (let next = index + 1; next < history.length; next++) {
    const message = history[next];
    if (message?.role !== 'tool') break;
    const name = names.get(message.tool_call_id);
    if (name === undefined) continue;
    const result = messages[next] as JsonObject;
    messages[next] = { role: 'user', content: toolResultText(name, String(result['content'] ?? '')) };
  }
}

/** How a call travels as text (SPEC §26.2): `[tool call NAME ARGUMENTS]`. */
export function toolCallText(name: string, args: string): string {
  return `[tool call ${name} ${args}]`;
}

/** How a result travels as text (SPEC §26.2): `[tool result NAME]` and the result on the next line. */
export function toolResultText(name: string, content: string): string {
  return `[tool result ${name}]\n${content}`;
}
