import type {
  LanguageModelV4CallOptions,
  LanguageModelV4Message,
  LanguageModelV4Prompt,
  LanguageModelV4ToolResultOutput,
  SharedV4Warning,
} from '@ai-sdk/provider';
import { UsageError } from '../core/errors.js';
import { isJsonObject, type JsonObject } from '../core/json.js';
import type { AssistantMessage, Message, ToolCall, ToolMessage } from '../core/message.js';
import type { ToolDefinition } from '../core/tool-definition.js';
import { hermesOptionsOf, originOf, toolCallFrom } from './ai-sdk-carriers.js';

/**
 * The AI SDK prompt as the canonical history (SPEC §2): each assistant message is the stored
 * message Hermes captured when it carries `providerOptions.hermes` (ai-sdk-carriers.ts), its
 * text, tool calls and reasoning from the parts; an assistant message from elsewhere keeps its
 * readable parts only and no origin, so none of another provider's opaque data is ever sent.
 */

type AssistantPart = Extract<LanguageModelV4Message, { role: 'assistant' }>['content'][number];

/** The canonical messages of an AI SDK prompt. Unsupported parts are a {@link UsageError} naming them. */
export function historyFromPrompt(prompt: LanguageModelV4Prompt): Message[] {
  const history: Message[] = [];
  for (const message of prompt) {
    if (message.role === 'system') history.push({ role: 'system', content: message.content });
    else if (message.role === 'user') history.push(userMessage(message.content));
    else if (message.role === 'assistant') history.push(assistantMessage(message.content));
    else history.push(...toolMessages(message.content));
  }
  return history;
}

function userMessage(parts: Extract<LanguageModelV4Message, { role: 'user' }>['content']): Message {
  const texts: string[] = [];
  for (const part of parts) {
    if (part.type !== 'text') {
      throw new UsageError(`hermes-ts/ai-sdk: ${part.type} parts in user messages are not supported yet (send text)`);
    }
    texts.push(part.text);
  }
  return {
    role: 'user',
    content: texts.length === 1 ? (texts[0] ?? '') : texts.map((text) => ({ type: 'text', text })),
  };
}

function assistantMessage(parts: readonly AssistantPart[]): AssistantMessage {
  let record: JsonObject | undefined;
  const texts: string[] = [];
  const reasonings: string[] = [];
  const calls: ToolCall[] = [];
  for (const part of parts) {
    const hermes = hermesOptionsOf(part);
    if (record === undefined && isJsonObject(hermes?.['message'])) record = hermes;
    if (part.type === 'text') texts.push(part.text);
    else if (part.type === 'reasoning') reasonings.push(part.text);
    else if (part.type === 'tool-call' && part.providerExecuted !== true) {
      const call = hermes?.['call'];
      calls.push(toolCallFrom(part, isJsonObject(call) ? call : undefined));
    }
    // Files, custom parts and provider-executed tool results have no canonical form here.
  }
  const stored = isJsonObject(record?.['message']) ? (record['message'] as JsonObject) : {};
  const { content: exactContent, reasoning: exactReasoning, ...carriers } = stored;
  const message: AssistantMessage = {
    ...(carriers as Partial<AssistantMessage>),
    role: 'assistant',
    content:
      typeof exactContent === 'string' || exactContent === null
        ? exactContent
        : texts.length > 0
          ? texts.join('')
          : null,
  };
  if (typeof exactReasoning === 'string' || exactReasoning === null) message.reasoning = exactReasoning;
  else if (reasonings.join('') !== '') message.reasoning = reasonings.join('');
  if (calls.length > 0) message.tool_calls = calls;
  const origin = record === undefined ? undefined : originOf(record);
  if (origin) message.origin = origin;
  return message;
}

function toolMessages(parts: Extract<LanguageModelV4Message, { role: 'tool' }>['content']): ToolMessage[] {
  const messages: ToolMessage[] = [];
  for (const part of parts) {
    if (part.type !== 'tool-result') continue;
    messages.push({
      role: 'tool',
      tool_call_id: part.toolCallId,
      tool_name: part.toolName,
      content: toolOutputText(part.output),
    });
  }
  return messages;
}

/** A tool result as the text the model reads. */
function toolOutputText(output: LanguageModelV4ToolResultOutput): string {
  switch (output.type) {
    case 'text':
    case 'error-text':
      return output.value;
    case 'json':
    case 'error-json':
      return JSON.stringify(output.value);
    case 'execution-denied':
      return output.reason ?? 'The tool call was denied.';
    case 'content':
      return output.value
        .map((item) => (item.type === 'text' ? item.text : `[${item.type === 'file' ? item.mediaType : item.type}]`))
        .join('\n');
  }
}

/** The function tools of a call as tool definitions, and warnings for what Hermes does not send. */
export function callTools(options: LanguageModelV4CallOptions): {
  tools: ToolDefinition[];
  warnings: SharedV4Warning[];
} {
  const warnings: SharedV4Warning[] = [];
  const tools: ToolDefinition[] = [];
  const choice = options.toolChoice?.type ?? 'auto';
  for (const tool of options.tools ?? []) {
    if (tool.type !== 'function') {
      warnings.push({ type: 'unsupported', feature: `provider tool ${tool.id}` });
      continue;
    }
    tools.push({
      name: tool.name,
      description: tool.description ?? '',
      parameters: structuredClone(tool.inputSchema) as JsonObject,
    });
  }
  if (choice === 'none') return { tools: [], warnings };
  if (choice !== 'auto')
    warnings.push({ type: 'unsupported', feature: `toolChoice ${choice}`, details: 'sent as auto' });
  return { tools, warnings };
}

/** Warnings for call settings Hermes transports do not send (sampling, stop sequences, JSON mode). */
export function settingWarnings(options: LanguageModelV4CallOptions): SharedV4Warning[] {
  const warnings: SharedV4Warning[] = [];
  const settings = [
    'temperature',
    'topP',
    'topK',
    'presencePenalty',
    'frequencyPenalty',
    'seed',
    'stopSequences',
  ] as const;
  for (const setting of settings)
    if (options[setting] !== undefined) warnings.push({ type: 'unsupported', feature: setting });
  if (options.responseFormat?.type === 'json') warnings.push({ type: 'unsupported', feature: 'responseFormat json' });
  return warnings;
}
