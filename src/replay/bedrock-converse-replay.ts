import type { JsonObject, JsonValue } from '../core/json.js';
import { isJsonObject } from '../core/json.js';
import type { AssistantMessage } from '../core/message.js';
import type { OriginStamp } from '../core/origin.js';
import type { BedrockModelPolicy } from './bedrock-converse-policy.js';
import { BEDROCK_ELIDED_TURN_TEXT, bedrockThinkText } from './bedrock-converse-policy.js';
import { syncToolCallSidecars } from './replay-tool-call-sync.js';
import type { CarrierDecision } from './replay-types.js';

/**
 * Pure replay of one stored assistant message onto the Bedrock Converse wire (SPEC §10, §23.2,
 * WIRE.md §3.4): the ordered `bedrock_content_blocks` sidecar is authoritative; without it the
 * blocks are rebuilt from Anthropic-shaped `reasoning_details` (`thinking` / `redacted_thinking`),
 * then the text, then the tool calls. The per-model policy row decides what reasoning travels.
 * The input message is never mutated.
 */

/** The route a history is being replayed to. */
export interface BedrockReplayTarget {
  /** Exact model id of the route. */
  model: string;
  /** Hostname of the route's base URL ("" for the provider default), as stamped on origins. */
  host: string;
  /** Whether this request asks for reasoning (signed thinking is only replayed when it does). */
  reasoningEnabled: boolean;
}

/** The wire content of one assistant turn plus the decisions made on its way there. */
export interface BedrockReplayedTurn {
  content: JsonObject[];
  decisions: CarrierDecision[];
}

type SourceBlock =
  | { kind: 'reasoning'; text: string; signature: string | undefined }
  | { kind: 'redacted'; data: string }
  | { kind: 'text'; text: string }
  | { kind: 'tool-use'; id: string; name: string; input: JsonValue };

/**
 * Whether a signed Bedrock carrier stamped `origin` may go back to `target` (SPEC §23.2).
 * "Matches" for Converse: issued by `bedrock_converse`, for the same exact model id, through the
 * same base-URL host (region endpoint). Claude signatures are bound to the model that signed them
 * ("Invalid `signature` in `thinking` block" after a model switch, WIRE.md §2.6b). An unstamped
 * legacy message follows SPEC §10: its sidecar / `reasoning_details` replay as before.
 */
export function bedrockIssuerMatches(origin: OriginStamp | undefined, target: BedrockReplayTarget): boolean {
  if (origin === undefined) return true;
  return origin.api === 'bedrock_converse' && origin.model === target.model && origin.host === target.host;
}

/** Replays one assistant message under `policy` (the row for the target model). */
export function replayBedrockAssistantTurn(
  stored: AssistantMessage,
  messageIndex: number,
  target: BedrockReplayTarget,
  policy: BedrockModelPolicy,
): BedrockReplayedTurn {
  // The sidecar loses every call the message no longer has (a removed duplicate, say): a toolUse
  // without its toolResult fails with "Expected toolResult blocks" (WIRE.md §3).
  const synced = syncToolCallSidecars(stored, messageIndex);
  const message = synced.message;
  const decisions: CarrierDecision[] = [...synced.decisions];
  const decide = (field: string, action: CarrierDecision['action'], reason: string, value?: string) => {
    const decision: CarrierDecision = { messageIndex, field, action, reason };
    if (value !== undefined) decision.bytes = utf8Length(value);
    decisions.push(decision);
  };
  const signedAllowed = signedReplayVerdict(message, target, policy);
  const content: JsonObject[] = [];
  let carriesTurn = false;

  for (const block of sourceBlocks(message)) {
    if (block.kind === 'text') {
      if (block.text.trim() === '') continue;
      content.push({ text: block.text });
      carriesTurn = true;
    } else if (block.kind === 'tool-use') {
      content.push({ toolUse: { toolUseId: block.id, name: block.name, input: block.input } });
      carriesTurn = true;
    } else if (policy.replay === 'signed') {
      const field = block.kind === 'redacted' ? 'redactedContent' : 'reasoningText';
      const blob = block.kind === 'redacted' ? block.data : (block.signature ?? '');
      if (signedAllowed !== true) {
        decide(field, 'dropped', signedAllowed, blob);
      } else if (block.kind === 'redacted') {
        content.push({ reasoningContent: { redactedContent: block.data } });
        decide(field, 'kept', 'signed route, same issuer', blob);
      } else if (block.signature === undefined || block.signature === '') {
        decide(field, 'dropped', 'unsigned reasoning: Bedrock requires a signature on reasoningContent', block.text);
      } else {
        content.push({ reasoningContent: { reasoningText: { text: block.text, signature: block.signature } } });
        decide(field, 'kept', 'signed route, same issuer', blob);
      }
    } else if (policy.replay === 'unsigned' && block.kind === 'reasoning' && block.text.trim() !== '') {
      content.push({ text: bedrockThinkText(block.text) });
      decide(
        'reasoning_text',
        'lifted',
        `unsigned model (${policy.family}): reasoning sent as think-tag text`,
        block.text,
      );
      carriesTurn = true;
    } else {
      const field = block.kind === 'redacted' ? 'redactedContent' : 'reasoningText';
      const reason =
        policy.replay === 'strip'
          ? `strip policy (${policy.family}): model takes no prior reasoning`
          : 'no readable text to send';
      decide(field, 'dropped', reason, block.kind === 'redacted' ? block.data : block.text);
    }
  }

  if (!carriesTurn) {
    // WIRE.md §3.4: a reasoning-only turn on Claude answers "This model does not support
    // assistant message prefill…"; an empty one "The content field in the Message object at
    // messages.N is empty…". The placeholder keeps the turn (and role alternation) valid.
    for (const decision of decisions) {
      if (decision.action !== 'kept') continue;
      decision.action = 'dropped';
      decision.reason = `reasoning-only turn (${policy.family}): the model rejects it as prefill`;
    }
    return { content: [{ text: BEDROCK_ELIDED_TURN_TEXT }], decisions };
  }
  return { content, decisions };
}

/** `true` when signed blocks of `message` may be replayed, else the reason they may not. */
function signedReplayVerdict(
  message: AssistantMessage,
  target: BedrockReplayTarget,
  policy: BedrockModelPolicy,
): true | string {
  if (policy.replay !== 'signed') return `${policy.replay} policy`;
  if (!target.reasoningEnabled) return 'thinking disabled for this request';
  if (message['_thinking_signature_invalidated'] === true) return 'signature invalidated';
  if (!bedrockIssuerMatches(message.origin, target))
    return 'foreign origin: signature bound to another model or endpoint';
  return true;
}

/** The ordered source blocks: sidecar when present, else rebuilt (SPEC §10). */
function sourceBlocks(message: AssistantMessage): SourceBlock[] {
  const toolCalls = message.tool_calls ?? [];
  const sidecar = message.bedrock_content_blocks;
  const blocks: SourceBlock[] = [];
  if (sidecar !== undefined && sidecar.length > 0) {
    for (const raw of sidecar) {
      const block = readSidecarBlock(raw);
      if (block) blocks.push(block);
    }
  } else {
    blocks.push(...reasoningFromDetails(message));
    const text = message.content ?? '';
    if (text !== '') blocks.push({ kind: 'text', text });
  }
  // Tool uses are re-sourced from `tool_calls` (names cleaned of provider quirks at capture,
  // arguments possibly edited); a sidecar toolUse whose call was removed is not sent.
  const seen = new Set<string>();
  const resolved: SourceBlock[] = [];
  for (const block of blocks) {
    if (block.kind !== 'tool-use') {
      resolved.push(block);
      continue;
    }
    const call = toolCalls.find((candidate) => candidate.id === block.id);
    if (call === undefined && message.tool_calls !== undefined) continue;
    seen.add(block.id);
    resolved.push(
      call ? { ...block, name: call.function.name, input: parseArguments(call.function.arguments) } : block,
    );
  }
  for (const call of toolCalls) {
    if (seen.has(call.id)) continue;
    resolved.push({
      kind: 'tool-use',
      id: call.id,
      name: call.function.name,
      input: parseArguments(call.function.arguments),
    });
  }
  return applyApiContent(resolved, message.api_content);
}

/** `api_content` replaces the visible text on the wire (SPEC §2). */
function applyApiContent(blocks: SourceBlock[], apiContent: string | undefined): SourceBlock[] {
  if (apiContent === undefined) return blocks;
  const withoutText = blocks.filter((block) => block.kind !== 'text');
  const firstTool = withoutText.findIndex((block) => block.kind === 'tool-use');
  const at = firstTool === -1 ? withoutText.length : firstTool;
  return [...withoutText.slice(0, at), { kind: 'text', text: apiContent }, ...withoutText.slice(at)];
}

function readSidecarBlock(raw: JsonObject): SourceBlock | null {
  if (typeof raw['text'] === 'string') return { kind: 'text', text: raw['text'] };
  const toolUse = raw['toolUse'];
  if (isJsonObject(toolUse)) {
    return {
      kind: 'tool-use',
      id: typeof toolUse['toolUseId'] === 'string' ? toolUse['toolUseId'] : '',
      name: typeof toolUse['name'] === 'string' ? toolUse['name'] : '',
      input: toolUse['input'] ?? {},
    };
  }
  const reasoning = raw['reasoningContent'];
  if (!isJsonObject(reasoning)) return null;
  if (typeof reasoning['redactedContent'] === 'string') return { kind: 'redacted', data: reasoning['redactedContent'] };
  // Legacy flat sidecar of the prior art (SPEC §10): {text, signature, redactedContentBase64}.
  if (typeof reasoning['redactedContentBase64'] === 'string') {
    return { kind: 'redacted', data: reasoning['redactedContentBase64'] };
  }
  const body = isJsonObject(reasoning['reasoningText']) ? reasoning['reasoningText'] : reasoning;
  if (typeof body['text'] !== 'string') return null;
  return {
    kind: 'reasoning',
    text: body['text'],
    signature: typeof body['signature'] === 'string' ? body['signature'] : undefined,
  };
}

/** Rebuilds reasoning from Anthropic-shaped `reasoning_details`, else from the readable text. */
function reasoningFromDetails(message: AssistantMessage): SourceBlock[] {
  const blocks: SourceBlock[] = [];
  for (const entry of message.reasoning_details ?? []) {
    if (entry['type'] === 'thinking' && typeof entry['thinking'] === 'string') {
      const signature = typeof entry['signature'] === 'string' ? entry['signature'] : undefined;
      blocks.push({ kind: 'reasoning', text: entry['thinking'], signature });
    } else if (entry['type'] === 'redacted_thinking' && typeof entry['data'] === 'string') {
      blocks.push({ kind: 'redacted', data: entry['data'] });
    }
  }
  if (blocks.length > 0) return blocks;
  const readable = message.reasoning_content ?? message.reasoning ?? '';
  return readable.trim() === '' ? [] : [{ kind: 'reasoning', text: readable, signature: undefined }];
}

function parseArguments(text: string): JsonValue {
  if (text.trim() === '') return {};
  try {
    return JSON.parse(text) as JsonValue;
  } catch {
    // Converse wants a JSON document for toolUse.input; a truncated argument string cannot be one.
    return {};
  }
}

function utf8Length(value: string): number {
  return new TextEncoder().encode(value).length;
}
