import type { HermesError } from './errors.js';
import type { AssistantMessage } from './message.js';
import type { FinishReason, Usage } from './usage.js';

/**
 * The one stream-event union every transport emits (STYLE rule 4 (docs/architecture.md)). Exactly one terminal
 * event ends a stream: `finish` (the assembled message) or `error` (nothing half-finished is
 * ever returned as complete).
 */
export type StreamEvent =
  | { type: 'start' }
  | { type: 'text-delta'; text: string }
  | { type: 'reasoning-delta'; text: string }
  | { type: 'tool-call-start'; index: number; id: string; name: string }
  | { type: 'tool-call-delta'; index: number; argumentsDelta: string }
  | { type: 'usage'; usage: Usage }
  | { type: 'retry'; attempt: number; delayMs: number; reason: string }
  | { type: 'finish'; message: AssistantMessage; finishReason: FinishReason; usage: Usage | null }
  | { type: 'error'; error: HermesError };

/** Event type discriminants. */
export type StreamEventType = StreamEvent['type'];
