import type { LanguageModelV4StreamPart } from '@ai-sdk/provider';
import type { AssistantMessage } from '../core/message.js';
import type { StreamEvent } from '../core/stream-event.js';
import type { FinishReason, Usage } from '../core/usage.js';
import { recordMetadata } from './ai-sdk-carriers.js';
import { finishReasonOf, hermesMetadata, recordHolder, toolCallParts, usageOf } from './ai-sdk-content.js';

/**
 * Hermes stream events as AI SDK stream parts (LanguageModelV4StreamPart): reasoning and text
 * deltas and tool-input deltas as they arrive; at the end, when the transport has assembled the
 * message and every carrier is known, the closing parts carry the record (ai-sdk-carriers.ts),
 * then the tool calls and `finish`.
 */

const REASONING_ID = 'reasoning-0';
const TEXT_ID = 'text-0';

/** Writes one model response's stream parts through `enqueue`. */
export class StreamPartWriter {
  private reasoning: string | undefined;
  private text: string | undefined;
  private readonly toolInputs = new Map<number, string>();

  constructor(private readonly enqueue: (part: LanguageModelV4StreamPart) => void) {}

  /** True once a content part went out (the caller may no longer fail the call as a whole). */
  get started(): boolean {
    return this.reasoning !== undefined || this.text !== undefined || this.toolInputs.size > 0;
  }

  /** A live transport event. */
  onEvent(event: StreamEvent | { type: string }): void {
    const live = event as StreamEvent;
    switch (live.type) {
      case 'reasoning-delta':
        if (this.reasoning === undefined) this.enqueue({ type: 'reasoning-start', id: REASONING_ID });
        this.reasoning = (this.reasoning ?? '') + live.text;
        this.enqueue({ type: 'reasoning-delta', id: REASONING_ID, delta: live.text });
        break;
      case 'text-delta':
        if (this.text === undefined) this.enqueue({ type: 'text-start', id: TEXT_ID });
        this.text = (this.text ?? '') + live.text;
        this.enqueue({ type: 'text-delta', id: TEXT_ID, delta: live.text });
        break;
      case 'tool-call-start':
        this.toolInputs.set(live.index, live.id);
        this.enqueue({ type: 'tool-input-start', id: live.id, toolName: live.name });
        break;
      case 'tool-call-delta': {
        const id = this.toolInputs.get(live.index);
        if (id !== undefined && live.argumentsDelta !== '') {
          this.enqueue({ type: 'tool-input-delta', id, delta: live.argumentsDelta });
        }
        break;
      }
      default:
        break;
    }
  }

  /** The assembled message: closing parts with the record, the tool calls, `finish`. */
  finish(message: AssistantMessage, usage: Usage | null, finishReason: FinishReason | null): void {
    const holder = recordHolder(message);
    const streamedText = this.text ?? '';
    const exact = {
      // The parts hold what streamed; the record keeps the assembled value when it differs.
      reasoning:
        holder === 'reasoning' && (message.reasoning ?? '') !== (this.reasoning ?? '')
          ? (message.reasoning ?? '')
          : undefined,
      content: (message.content ?? '') !== streamedText && this.text !== undefined ? message.content : undefined,
    };
    const metadata = recordMetadata(message, exact);
    const record = hermesMetadata(metadata);
    if (holder === 'reasoning' || this.reasoning !== undefined) {
      if (this.reasoning === undefined) this.enqueue({ type: 'reasoning-start', id: REASONING_ID });
      this.enqueue({
        type: 'reasoning-end',
        id: REASONING_ID,
        ...(holder === 'reasoning' ? { providerMetadata: record } : {}),
      });
    }
    if (this.text === undefined && (message.content ?? '') !== '') {
      this.enqueue({ type: 'text-start', id: TEXT_ID });
      this.enqueue({ type: 'text-delta', id: TEXT_ID, delta: message.content ?? '' });
      this.text = message.content ?? '';
    }
    if (this.text !== undefined) {
      this.enqueue({ type: 'text-end', id: TEXT_ID, ...(holder === 'text' ? { providerMetadata: record } : {}) });
    }
    for (const id of this.toolInputs.values()) this.enqueue({ type: 'tool-input-end', id });
    for (const part of toolCallParts(message, holder, metadata)) this.enqueue(part);
    this.enqueue({ type: 'finish', usage: usageOf(usage), finishReason: finishReasonOf(finishReason, message) });
  }
}
