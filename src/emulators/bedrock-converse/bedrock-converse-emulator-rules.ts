import { isJsonObject } from '../../core/json.js';
import type { JsonObject } from '../../core/json.js';
import { openPayload, verifyTextSignature } from '../shared/emulator-sealing.js';
import type { ScriptInput, ScriptMessage } from '../shared/scripted-model.js';

/**
 * What the Bedrock emulator enforces, with the service's exact texts (WIRE.md §3.4, §2.6), and
 * how it reads a Converse request into the scripted model's input. Model families are told apart
 * by id the way the real service routes them: `anthropic.claude-*` (signed thinking relayed from
 * Anthropic), `deepseek.r1*` (rejects reasoning on input), everything else unsigned.
 */

/** HMAC purpose of Claude thinking signatures issued by this emulator. */
export const THINKING_SIGNATURE_PURPOSE = 'bedrock-converse-thinking';
/** Seal purpose of redacted reasoning blobs issued by this emulator. */
export const REDACTED_PURPOSE = 'bedrock-converse-redacted';
/** The documented magic string that makes Claude answer with redacted thinking (WIRE.md §2.2). */
export const REDACTED_TRIGGER = 'ANTHROPIC_MAGIC_STRING_TRIGGER_REDACTED_THINKING';

/** A validation failure: the `ValidationException` message the real service answers. */
export interface BedrockRuleViolation {
  message: string;
}

/** Model family as the emulator treats it. */
export type EmulatedFamily = 'claude' | 'deepseek-r1' | 'unsigned';

/** Family of a model id (cross-region prefixes such as `us.` ignored). */
export function emulatedFamily(modelId: string): EmulatedFamily {
  const base = modelId.toLowerCase().replace(/^(?:us|eu|apac|global|jp|au|ca)\./, '');
  if (base.startsWith('anthropic.claude')) return 'claude';
  if (base.startsWith('deepseek.r1')) return 'deepseek-r1';
  return 'unsigned';
}

/** True when the request asks Claude for thinking (`enabled` or `adaptive`). */
export function thinkingRequested(body: JsonObject): boolean {
  const fields = body['additionalModelRequestFields'];
  if (!isJsonObject(fields) || !isJsonObject(fields['thinking'])) return false;
  return fields['thinking']['type'] === 'enabled' || fields['thinking']['type'] === 'adaptive';
}

const RELAY = 'The model returned the following errors: ';
const EXTENDED_THINKING_TAIL =
  'When `thinking` is enabled, a final `assistant` message must start with a thinking block (preceeding the lastmost ' +
  'set of `tool_use` and `tool_result` blocks). We recommend you include thinking blocks from previous turns. To ' +
  'avoid this requirement, disable `thinking`. Please consult our documentation at ' +
  'https://docs.claude.com/en/docs/build-with-claude/extended-thinking';

/** Checks a Converse body; returns the first violation, as the service would answer it. */
export function validateConverseBody(modelId: string, body: JsonObject, secret: string): BedrockRuleViolation | null {
  const family = emulatedFamily(modelId);
  const messages = Array.isArray(body['messages']) ? body['messages'].filter(isJsonObject) : [];
  if (messages.length === 0 || messages[0]?.['role'] !== 'user') {
    return {
      message:
        'A conversation must start with a user message. Try again with a conversation that starts with a user message.',
    };
  }
  for (let index = 0; index < messages.length; index += 1) {
    const message = messages[index] as JsonObject;
    const content = Array.isArray(message['content']) ? message['content'].filter(isJsonObject) : [];
    if (index > 0 && messages[index - 1]?.['role'] === message['role']) {
      return {
        message:
          'A conversation must alternate between user and assistant roles. Make sure the conversation alternates between user and assistant roles and try again.',
      };
    }
    if (content.length === 0) {
      // WIRE.md §3.4 (anthropics/claude-code#13709).
      return {
        message: `The content field in the Message object at messages.${index} is empty. Add a ContentBlock object to the content field and try again.`,
      };
    }
    for (let blockIndex = 0; blockIndex < content.length; blockIndex += 1) {
      const block = content[blockIndex] as JsonObject;
      if (typeof block['text'] === 'string' && block['text'].trim() === '') {
        return {
          message: `The text field in the ContentBlock object at messages.${index}.content.${blockIndex} is blank. Add text to the text field, and try again.`,
        };
      }
      if (!isJsonObject(block['reasoningContent'])) continue;
      // WIRE.md §3.4: DeepSeek R1 refuses any reasoning on input, with this misleading text.
      if (family === 'deepseek-r1') {
        return {
          message: 'User messages cannot contain reasoning content. Please remove the reasoning content and try again.',
        };
      }
      if (family === 'claude') {
        const violation = checkSignedReasoning(
          block['reasoningContent'],
          `messages.${index}.content.${blockIndex}`,
          secret,
        );
        if (violation) return violation;
      }
    }
  }
  if (family !== 'claude') return null;
  const last = messages[messages.length - 1] as JsonObject;
  const reasoningOnly = messages.some(
    (message) =>
      message['role'] === 'assistant' &&
      Array.isArray(message['content']) &&
      message['content'].every((block) => isJsonObject(block) && isJsonObject(block['reasoningContent'])),
  );
  if (last['role'] !== 'user' || reasoningOnly) {
    // WIRE.md §3.4 (hermes-agent#105780): a reasoning-only assistant turn reads as prefill.
    return {
      message: 'This model does not support assistant message prefill. The conversation must end with a user message.',
    };
  }
  return thinkingRequested(body) ? checkToolLoopStartsWithThinking(messages) : null;
}

function checkSignedReasoning(reasoning: JsonObject, path: string, secret: string): BedrockRuleViolation | null {
  if (typeof reasoning['redactedContent'] === 'string') {
    const token = Buffer.from(reasoning['redactedContent'], 'base64').toString('utf8');
    if (openPayload(REDACTED_PURPOSE, token, secret) !== undefined) return null;
    // Anthropic's text for altered redacted data was not captured [?]; it names the block type.
    return { message: `${RELAY}${path}: Invalid \`data\` in \`redacted_thinking\` block` };
  }
  const reasoningText = isJsonObject(reasoning['reasoningText']) ? reasoning['reasoningText'] : {};
  const text = typeof reasoningText['text'] === 'string' ? reasoningText['text'] : '';
  const signature = reasoningText['signature'];
  if (typeof signature !== 'string') {
    // Unsigned reasoningContent to Claude: Bedrock requires a signature (WIRE.md §3.4) [?] exact text.
    return { message: `${RELAY}${path}.thinking.signature: Field required` };
  }
  if (!verifyTextSignature(THINKING_SIGNATURE_PURPOSE, text, signature, secret)) {
    // WIRE.md §2.6b relayed through Bedrock.
    return { message: `${RELAY}${path}: Invalid \`signature\` in \`thinking\` block` };
  }
  return null;
}

/** WIRE.md §3.4 / §2.6a: the assistant turn answered by the trailing tool results must start with thinking. */
function checkToolLoopStartsWithThinking(messages: readonly JsonObject[]): BedrockRuleViolation | null {
  const last = messages[messages.length - 1];
  const lastContent = Array.isArray(last?.['content']) ? last['content'] : [];
  if (!lastContent.some((block) => isJsonObject(block) && 'toolResult' in block)) return null;
  const index = messages.length - 2;
  const assistant = messages[index];
  const first = Array.isArray(assistant?.['content']) ? assistant['content'][0] : undefined;
  if (!isJsonObject(first) || isJsonObject(first['reasoningContent'])) return null;
  const found = 'toolUse' in first ? 'tool_use' : 'text';
  return {
    message: `${RELAY}messages.${index}.content.0.type: Expected \`thinking\` or \`redacted_thinking\`, but found \`${found}\`. ${EXTENDED_THINKING_TAIL}`,
  };
}

const THINK_TAG = /<think>\n?([\s\S]*?)\n?<\/think>/g;

/** Reads a Converse body into the scripted model's input (reasoning that came back included). */
export function scriptInputFromConverse(body: JsonObject, secret: string): ScriptInput {
  const messages: ScriptMessage[] = [];
  for (const block of Array.isArray(body['system']) ? body['system'] : []) {
    if (isJsonObject(block) && typeof block['text'] === 'string')
      messages.push({ role: 'system', text: block['text'] });
  }
  for (const message of Array.isArray(body['messages']) ? body['messages'] : []) {
    if (!isJsonObject(message)) continue;
    const content = Array.isArray(message['content']) ? message['content'].filter(isJsonObject) : [];
    if (message['role'] === 'assistant') messages.push(assistantScriptMessage(content, secret));
    else messages.push(...userScriptMessages(content));
  }
  const toolConfig = isJsonObject(body['toolConfig']) ? body['toolConfig'] : {};
  const tools = (Array.isArray(toolConfig['tools']) ? toolConfig['tools'] : []).flatMap((tool) =>
    isJsonObject(tool) && isJsonObject(tool['toolSpec']) && typeof tool['toolSpec']['name'] === 'string'
      ? [tool['toolSpec']['name']]
      : [],
  );
  return { messages, tools };
}

function userScriptMessages(content: readonly JsonObject[]): ScriptMessage[] {
  const out: ScriptMessage[] = [];
  const texts: string[] = [];
  for (const block of content) {
    if (typeof block['text'] === 'string') texts.push(block['text']);
    const result = block['toolResult'];
    if (isJsonObject(result)) {
      const parts = Array.isArray(result['content']) ? result['content'] : [];
      const text = parts
        .map((part) => (isJsonObject(part) && typeof part['text'] === 'string' ? part['text'] : ''))
        .join('');
      out.push({ role: 'tool', text, toolCallId: typeof result['toolUseId'] === 'string' ? result['toolUseId'] : '' });
    }
  }
  if (texts.length > 0) out.push({ role: 'user', text: texts.join('\n') });
  return out;
}

function assistantScriptMessage(content: readonly JsonObject[], secret: string): ScriptMessage {
  const reasoning: string[] = [];
  const texts: string[] = [];
  const toolCalls: NonNullable<ScriptMessage['toolCalls']> = [];
  for (const block of content) {
    if (typeof block['text'] === 'string') {
      // Unsigned models get their reasoning back as think-tag text (WIRE.md §3.4).
      const visible = block['text'].replace(THINK_TAG, (_whole, inner: string) => {
        reasoning.push(inner);
        return '';
      });
      if (visible.trim() !== '') texts.push(visible);
    }
    const reasoningContent = block['reasoningContent'];
    if (isJsonObject(reasoningContent)) {
      if (
        isJsonObject(reasoningContent['reasoningText']) &&
        typeof reasoningContent['reasoningText']['text'] === 'string'
      ) {
        reasoning.push(reasoningContent['reasoningText']['text']);
      } else if (typeof reasoningContent['redactedContent'] === 'string') {
        const opened = openPayload(
          REDACTED_PURPOSE,
          Buffer.from(reasoningContent['redactedContent'], 'base64').toString('utf8'),
          secret,
        );
        if (isJsonObject(opened) && typeof opened['reasoning'] === 'string') reasoning.push(opened['reasoning']);
      }
    }
    const toolUse = block['toolUse'];
    if (isJsonObject(toolUse)) {
      toolCalls.push({
        id: typeof toolUse['toolUseId'] === 'string' ? toolUse['toolUseId'] : '',
        name: typeof toolUse['name'] === 'string' ? toolUse['name'] : '',
        arguments: JSON.stringify(toolUse['input'] ?? {}),
      });
    }
  }
  const message: ScriptMessage = { role: 'assistant', text: texts.join('') };
  if (toolCalls.length > 0) message.toolCalls = toolCalls;
  if (reasoning.length > 0) message.reasoning = reasoning.join('\n\n');
  return message;
}
