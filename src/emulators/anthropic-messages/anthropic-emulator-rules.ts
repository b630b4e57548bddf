/**
 * The rules the Anthropic emulator enforces, with Anthropic's exact error texts (WIRE.md §2.6):
 * unknown keys, unsigned / altered / foreign thinking signatures, redacted data that did not come
 * back byte for byte, a tool-loop assistant turn without its leading thinking block, and thinking
 * in the final assistant turn when thinking is disabled. Translates a valid request into the
 * scripted model's input. MiniMax models (SPEC §24.2) accept unsigned thinking blocks and think
 * unless told `{"type":"disabled"}`; MiniMax-M3 takes only `adaptive` or `disabled`.
 */
import type { ScriptInput, ScriptMessage } from '../shared/scripted-model.js';
import { type BindingCheckOptions, type BindingTransformation, checkBinding } from './anthropic-emulator-binding.js';
import { isEmulatedDeepSeek, thinkingShapeViolation } from './anthropic-emulator-shape-rules.js';
import { openRedactedThinking, verifyThinkingSignature } from './anthropic-emulator-signing.js';

/** Wire framing the request arrived on. */
export type AnthropicEmulatorFraming = 'direct' | 'bedrock';

/** Per-request inputs of {@link checkAnthropicRequest}. */
export interface AnthropicRuleOptions {
  framing: AnthropicEmulatorFraming;
  secret: string;
  /** Model id (body `model`, or the Bedrock path). */
  model: string;
  /** Per-model "keeps prior thinking" (SPEC §9.1); false → prior-turn thinking is ignored. */
  keepsPriorThinking: (model: string) => boolean;
  /** Fault knob: reject the first verified signed block of this request. */
  rejectSignatures: boolean;
  /** Use the 2026-09 "bound to a different conversation" wording of error b. */
  boundWording: boolean;
  /** Thinking-block binding is on (anthropic-emulator-binding.ts): signatures are bound and checked. */
  binding?: BindingCheckOptions | undefined;
}

/** A request that passed every rule. */
export interface AnthropicCheckedRequest {
  ok: true;
  system: string;
  script: ScriptInput;
  thinkingEnabled: boolean;
  maxTokens: number;
  /** Under binding, what was dropped from the request (the answer's `input_transformations`). */
  transformations: BindingTransformation[];
}

/** A rejected request: HTTP status and the provider message. */
export interface AnthropicRejection {
  ok: false;
  status: number;
  message: string;
  /** A thinking-binding rejection ("bound to a different conversation"). */
  bound?: boolean;
}

type Block = Record<string, unknown>;

const TOP_LEVEL_KEYS = new Set([
  'model',
  'max_tokens',
  'messages',
  'system',
  'tools',
  'tool_choice',
  'thinking',
  'output_config',
  'stream',
  'metadata',
  'stop_sequences',
  'temperature',
  'top_p',
  'top_k',
  'context_management',
  // On-demand compaction (anthropic-emulator-compaction.ts checks it first).
  'compaction',
]);
const BEDROCK_ONLY_KEYS = new Set(['anthropic_version', 'anthropic_beta']);
const BLOCK_KEYS: Record<string, Set<string>> = {
  text: new Set(['type', 'text', 'citations', 'cache_control']),
  thinking: new Set(['type', 'thinking', 'signature']),
  redacted_thinking: new Set(['type', 'data']),
  tool_use: new Set(['type', 'id', 'name', 'input', 'cache_control']),
  tool_result: new Set(['type', 'tool_use_id', 'content', 'is_error', 'cache_control']),
  image: new Set(['type', 'source', 'cache_control']),
  compaction: new Set(['type', 'content', 'signature', 'cache_control']),
};

const reject = (message: string, status = 400): AnthropicRejection => ({ ok: false, status, message });

/** MiniMax's Anthropic-compatible models (SPEC §24.2). */
export function isEmulatedMiniMax(model: string): boolean {
  return model.trim().toLowerCase().startsWith('minimax');
}

/** Whether the request asks for thinking, or the rejection of its `thinking` parameter. */
function thinkingRequested(thinking: Block | undefined, model: string): boolean | AnthropicRejection {
  if (!isEmulatedMiniMax(model)) return thinking?.['type'] === 'enabled' || thinking?.['type'] === 'adaptive';
  // MiniMax thinks unless told `{"type":"disabled"}` (SPEC §24.2).
  const type = thinking?.['type'];
  if (model.toLowerCase().startsWith('minimax-m3') && type !== undefined && type !== 'adaptive' && type !== 'disabled')
    return reject(`thinking.type: ${model} accepts "adaptive" or "disabled"`);
  return type !== 'disabled';
}

/** WIRE.md §2.6a, verbatim with the real path. */
export function missingThinkingMessage(messageIndex: number, found: string): string {
  return `messages.${messageIndex}.content.0.type: Expected \`thinking\` or \`redacted_thinking\`, but found \`${found}\`. When \`thinking\` is enabled, a final \`assistant\` message must start with a thinking block (preceeding the lastmost set of \`tool_use\` and \`tool_result\` blocks). We recommend you include thinking blocks from previous turns. To avoid this requirement, disable \`thinking\`. Please consult our documentation at https://docs.claude.com/en/docs/build-with-claude/extended-thinking`;
}

/** WIRE.md §2.6b (classic, or the 2026-09 "bound to a different conversation" variant). */
export function invalidSignatureMessage(messageIndex: number, blockIndex: number, bound: boolean): string {
  const classic = `messages.${messageIndex}.content.${blockIndex}: Invalid \`signature\` in \`thinking\` block`;
  if (!bound) return classic;
  return `${classic}. The block is bound to a different conversation. Remove the block, or set \`thinking.block_binding.prefix_mismatch_behavior\` to "drop_block". That setting requires the \`thinking-binding-controls-2026-08-01\` value in the \`anthropic-beta\` header. The \`system\` prompt differs from the one this block was created with.`;
}

function systemText(system: unknown): string {
  if (typeof system === 'string') return system;
  if (Array.isArray(system)) return system.map((block) => String((block as Block)['text'] ?? '')).join('\n\n');
  return '';
}

function blocksOf(content: unknown): Block[] {
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  return Array.isArray(content) ? (content as Block[]) : [];
}

function toolResultText(content: unknown): string {
  if (typeof content === 'string') return content;
  return blocksOf(content)
    .map((block) => String(block['text'] ?? ''))
    .join('');
}

/** Checks one request and, when valid, translates it for the scripted model. */
export function checkAnthropicRequest(
  body: unknown,
  options: AnthropicRuleOptions,
): AnthropicCheckedRequest | AnthropicRejection {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return reject('invalid JSON body');
  const request = body as Block;
  for (const key of Object.keys(request)) {
    const allowed =
      options.framing === 'bedrock'
        ? (TOP_LEVEL_KEYS.has(key) && key !== 'model' && key !== 'stream') || BEDROCK_ONLY_KEYS.has(key)
        : TOP_LEVEL_KEYS.has(key);
    if (!allowed) return reject(`${key}: Extra inputs are not permitted`);
  }
  if (options.framing === 'bedrock' && request['anthropic_version'] !== 'bedrock-2023-05-31') {
    return reject('anthropic_version: Input should be "bedrock-2023-05-31"');
  }
  if (typeof request['max_tokens'] !== 'number') return reject('max_tokens: Field required');
  if (!Array.isArray(request['messages'])) return reject('messages: Field required');
  const thinking = request['thinking'] as Block | undefined;
  const requested = thinkingRequested(thinking, options.model);
  if (typeof requested !== 'boolean') return requested;
  const thinkingEnabled = requested;
  // MiniMax and DeepSeek's Anthropic-format endpoint take unsigned thinking (SPEC §24.1, §24.2).
  const minimax = isEmulatedMiniMax(options.model) || isEmulatedDeepSeek(options.model);
  if (thinking?.['type'] === 'enabled') {
    const budget = thinking['budget_tokens'];
    if (typeof budget !== 'number' || budget < 1024)
      return reject('thinking.enabled.budget_tokens: Input should be greater than or equal to 1024');
    if (budget >= request['max_tokens']) return reject('`max_tokens` must be greater than `thinking.budget_tokens`');
  }
  const system = systemText(request['system']);
  const messages = request['messages'] as Block[];

  // The in-flight tool loop: assistant turns after the last user turn without tool_result blocks.
  let loopStart = 0;
  messages.forEach((message, index) => {
    if (message['role'] === 'user' && !blocksOf(message['content']).some((block) => block['type'] === 'tool_result'))
      loopStart = index + 1;
  });
  const shape = thinkingShapeViolation(messages, { model: options.model, thinkingEnabled, loopStart });
  if (shape !== undefined) return reject(shape);
  // Without binding the emulator stands for a provider that knows no binding controls.
  if (!options.binding && thinking?.['block_binding'] !== undefined) {
    return reject(`thinking.${String(thinking['type'])}.block_binding: Extra inputs are not permitted`);
  }
  const binding = options.binding ? checkBinding(request, options.binding) : undefined;
  if (binding && !binding.ok) return { ...reject(binding.message), bound: binding.bound };
  const bound = binding?.ok ? binding : undefined;
  // MiniMax keeps every turn's thinking in context (SPEC §9.3 `minimax` keeps all).
  const keepsPrior = minimax || options.keepsPriorThinking(options.model);
  const faultPending = options.rejectSignatures;
  const script: ScriptMessage[] = system === '' ? [] : [{ role: 'system', text: system }];

  for (const [messageIndex, message] of messages.entries()) {
    const blocks = blocksOf(message['content']);
    for (const [blockIndex, block] of blocks.entries()) {
      const type = String(block['type']);
      const allowed = BLOCK_KEYS[type];
      if (!allowed)
        return reject(
          `messages.${messageIndex}.content.${blockIndex}.type: Input tag '${type}' found using 'type' does not match any of the expected tags`,
        );
      for (const key of Object.keys(block)) {
        if (!allowed.has(key))
          return reject(
            `messages.${messageIndex}.content.${blockIndex}.${type}.${key}: Extra inputs are not permitted`,
          );
      }
      if (type === 'thinking' && typeof block['signature'] !== 'string' && !minimax) {
        return reject(`messages.${messageIndex}.content.${blockIndex}.thinking.signature: Field required`);
      }
    }
    if (message['role'] === 'user') {
      const results = blocks.filter((block) => block['type'] === 'tool_result');
      for (const result of results)
        script.push({
          role: 'tool',
          text: toolResultText(result['content']),
          toolCallId: String(result['tool_use_id']),
        });
      const text = blocks
        .filter((block) => block['type'] === 'text')
        .map((block) => String(block['text']))
        .join('\n');
      if (text !== '' || results.length === 0) script.push({ role: 'user', text });
      continue;
    }
    // Older models drop prior-turn thinking before it reaches the model, unverified; the tool loop is always read.
    const readsThinking = thinkingEnabled && (keepsPrior || messageIndex >= loopStart);
    const reasoning: string[] = [];
    for (const [blockIndex, block] of blocks.entries()) {
      if (!readsThinking) break;
      const key = `${messageIndex}.${blockIndex}`;
      if (bound && (block['type'] === 'thinking' || block['type'] === 'redacted_thinking')) {
        // Checked by checkBinding: a dropped block never reaches the model.
        if (faultPending) return reject(invalidSignatureMessage(messageIndex, blockIndex, options.boundWording));
        if (bound.dropped.has(key)) continue;
        const text = block['type'] === 'thinking' ? String(block['thinking'] ?? '') : (bound.hidden.get(key) ?? '');
        if (text !== '') reasoning.push(text);
        continue;
      }
      if (block['type'] === 'thinking' && minimax && typeof block['signature'] !== 'string') {
        // SPEC §24.2: MiniMax reads unsigned thinking as it is.
        if (block['thinking'] !== '') reasoning.push(String(block['thinking']));
      } else if (block['type'] === 'thinking') {
        const valid = verifyThinkingSignature(
          options.secret,
          String(block['thinking'] ?? ''),
          system,
          String(block['signature']),
        );
        if (!valid || faultPending)
          return reject(invalidSignatureMessage(messageIndex, blockIndex, options.boundWording));
        if (block['thinking'] !== '') reasoning.push(String(block['thinking']));
      } else if (block['type'] === 'redacted_thinking') {
        const hidden = openRedactedThinking(options.secret, String(block['data'] ?? ''), system);
        if (hidden === undefined || faultPending)
          return reject(
            `messages.${messageIndex}.content.${blockIndex}: Invalid \`data\` in \`redacted_thinking\` block`,
          );
        reasoning.push(hidden);
      }
    }
    if (
      !thinkingEnabled &&
      messageIndex === messages.length - 1 &&
      blocks.some((block) => String(block['type']).endsWith('thinking'))
    ) {
      return reject(
        `messages.${messageIndex}.content.0: When thinking is disabled, an \`assistant\` message in the final position cannot contain \`thinking\`. To use thinking blocks, enable \`thinking\` in your request.`,
      );
    }
    const toolCalls = blocks
      .filter((block) => block['type'] === 'tool_use')
      .map((block) => ({
        id: String(block['id']),
        name: String(block['name']),
        arguments: JSON.stringify(block['input'] ?? {}),
      }));
    const text = blocks
      .filter((block) => block['type'] === 'text')
      .map((block) => String(block['text']))
      .join('');
    // Tool calls this emulator never issued (its ids are `toolu_…`): another model's turn (SPEC §26.8).
    const foreign = toolCalls.some((call) => !call.id.startsWith('toolu_'));
    script.push({
      role: 'assistant',
      text,
      ...(toolCalls.length > 0 ? { toolCalls } : {}),
      ...(reasoning.length > 0 ? { reasoning: reasoning.join('\n\n') } : {}),
      ...(foreign ? { foreign } : {}),
    });
  }

  // WIRE.md §2.6a: the assistant turn answered by the trailing tool_result must start with thinking.
  const last = messages[messages.length - 1];
  const previous = messages[messages.length - 2];
  if (
    thinkingEnabled &&
    last?.['role'] === 'user' &&
    blocksOf(last['content']).some((block) => block['type'] === 'tool_result') &&
    previous?.['role'] === 'assistant'
  ) {
    const first = blocksOf(previous['content'])[0];
    const firstType = String(first?.['type'] ?? 'text');
    if (firstType !== 'thinking' && firstType !== 'redacted_thinking')
      return reject(missingThinkingMessage(messages.length - 2, firstType));
  }
  const tools = Array.isArray(request['tools'])
    ? (request['tools'] as Block[]).map((tool) => String(tool['name']))
    : [];
  return {
    ok: true,
    system,
    script: { messages: script, tools },
    thinkingEnabled,
    maxTokens: request['max_tokens'],
    transformations: bound?.transformations ?? [],
  };
}
