import type {
  LanguageModelV4Content,
  LanguageModelV4FinishReason,
  LanguageModelV4ToolCall,
  LanguageModelV4Usage,
  SharedV4ProviderMetadata,
} from '@ai-sdk/provider';
import type { JsonObject } from '../core/json.js';
import type { AssistantMessage } from '../core/message.js';
import type { FinishReason, Usage } from '../core/usage.js';
import { callMetadata, HERMES_METADATA_KEY, recordMetadata } from './ai-sdk-carriers.js';

/**
 * A stored assistant message as AI SDK content parts (doGenerate) and the rules the stream
 * (ai-sdk-stream.ts) shares: which part carries the message's record, usage, finish reason.
 */

/** The part that carries a message's record metadata (ai-sdk-carriers.ts). */
export type RecordHolder = 'reasoning' | 'tool-call' | 'text' | 'none';

/** The message has reasoning the AI SDK should see as a reasoning part (text, or a reasoning carrier). */
export function hasReasoningPart(message: AssistantMessage): boolean {
  return (
    (message.reasoning ?? '') !== '' ||
    typeof message.reasoning_content === 'string' ||
    (message.reasoning_details?.length ?? 0) > 0 ||
    (message.codex_reasoning_items?.length ?? 0) > 0
  );
}

/** Where the record goes: the reasoning part, else the first tool call, else the text. */
export function recordHolder(message: AssistantMessage): RecordHolder {
  if (hasReasoningPart(message)) return 'reasoning';
  if ((message.tool_calls?.length ?? 0) > 0) return 'tool-call';
  if ((message.content ?? '') !== '') return 'text';
  return 'none';
}

/** `{ hermes: metadata }`. */
export function hermesMetadata(metadata: JsonObject): SharedV4ProviderMetadata {
  return { [HERMES_METADATA_KEY]: metadata } as SharedV4ProviderMetadata;
}

/** The content parts of a message, in reasoning, text, tool-call order, the record on its holder. */
export function generateContent(message: AssistantMessage): LanguageModelV4Content[] {
  const holder = recordHolder(message);
  const record = recordMetadata(message);
  const content: LanguageModelV4Content[] = [];
  if (holder === 'reasoning') {
    content.push({ type: 'reasoning', text: message.reasoning ?? '', providerMetadata: hermesMetadata(record) });
  }
  if ((message.content ?? '') !== '') {
    const text: LanguageModelV4Content = { type: 'text', text: message.content ?? '' };
    if (holder === 'text') text.providerMetadata = hermesMetadata(record);
    content.push(text);
  }
  content.push(...toolCallParts(message, holder, record));
  return content;
}

/** The tool-call parts of a message: each with its own carriers, the first with the record when it holds it. */
export function toolCallParts(
  message: AssistantMessage,
  holder: RecordHolder,
  record: JsonObject,
): LanguageModelV4ToolCall[] {
  return (message.tool_calls ?? []).map((call, index) => {
    const own = callMetadata(call);
    return {
      type: 'tool-call',
      toolCallId: call.id,
      toolName: call.function.name,
      input: call.function.arguments === '' ? '{}' : call.function.arguments,
      providerMetadata: hermesMetadata(holder === 'tool-call' && index === 0 ? { ...record, ...own } : own),
    };
  });
}

/** AI SDK usage from Hermes usage (unknown: every count undefined). */
export function usageOf(usage: Usage | null): LanguageModelV4Usage {
  const cacheRead = usage?.cacheReadTokens;
  const reasoning = usage?.reasoningTokens;
  return {
    inputTokens: {
      total: usage?.inputTokens,
      noCache: usage === null ? undefined : usage.inputTokens - (cacheRead ?? 0),
      cacheRead,
      cacheWrite: undefined,
    },
    outputTokens: {
      total: usage?.outputTokens,
      text: usage === null ? undefined : usage.outputTokens - (reasoning ?? 0),
      reasoning,
    },
  };
}

/** AI SDK finish reason from the transport's (absent: the message's raw reason, else `other`). */
export function finishReasonOf(finish: FinishReason | null, message: AssistantMessage): LanguageModelV4FinishReason {
  if (finish) return { unified: finish.unified, raw: finish.raw ?? undefined };
  if ((message.tool_calls?.length ?? 0) > 0) return { unified: 'tool-calls', raw: message.finish_reason };
  return { unified: 'other', raw: message.finish_reason };
}
