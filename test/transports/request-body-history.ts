import type { JsonObject } from '../../src/core/json.js';
import type { AssistantMessage, Message, ToolCall } from '../../src/core/message.js';
import type { OriginStamp } from '../../src/core/origin.js';

/**
 * Seeded random canonical histories for the request-body property tests: system prompt, user
 * text and parts, assistant turns with text, reasoning in every carrier, signatures, encrypted
 * items, private records, tool calls with per-call signatures, Anthropic blocks, Responses
 * reasoning items and compaction checkpoints, from several origins; tool results answer calls.
 */

const ORIGINS: readonly OriginStamp[] = [
  { api: 'chat_completions', provider: 'openrouter', host: 'openrouter.ai', model: 'anthropic/claude-sonnet-4' },
  { api: 'chat_completions', provider: 'deepseek', host: 'api.deepseek.com', model: 'deepseek-reasoner' },
  { api: 'chat_completions', provider: 'copilot', host: 'api.githubcopilot.com', model: 'gemini-3-pro-preview' },
  { api: 'codex_responses', provider: 'openai', host: 'api.openai.com', model: 'gpt-5.1-codex' },
  { api: 'anthropic_messages', provider: 'anthropic', host: 'api.anthropic.com', model: 'claude-sonnet-4-5' },
  { api: 'gemini', provider: 'gemini', host: 'generativelanguage.googleapis.com', model: 'gemini-2.5-pro' },
];
// Text with JSON escapes, non-ASCII and an astral character, so spliced text is checked on them.
const WORDS = ['read', 'the', 'file', 'tests', 'build', '"quoted"', 'tab\there', 'line\nbreak', 'café', '🙂', '\\'];
const BLOB = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

/** A generator of random values from one seeded stream. */
export class HistoryGenerator {
  private turn = 0;
  constructor(private readonly next: () => number) {}

  private pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)] as T;
  }
  private chance(probability: number): boolean {
    return this.next() < probability;
  }
  private text(words: number): string {
    return Array.from({ length: 1 + Math.floor(this.next() * words) }, () => this.pick(WORDS)).join(' ');
  }
  private blob(length: number): string {
    return Array.from({ length }, () => this.pick(BLOB.split(''))).join('');
  }

  /** A system prompt. */
  system(): Message {
    return { role: 'system', content: `You are a coding agent. ${this.text(8)}` };
  }

  /** One user message (plain text or content parts). */
  user(): Message {
    if (this.chance(0.2)) return { role: 'user', content: [{ type: 'text', text: this.text(10) }], timestamp: 1 };
    return { role: 'user', content: this.text(20), timestamp: 1 };
  }

  /** One assistant turn and the tool results that answer its calls. */
  assistantTurn(): Message[] {
    this.turn += 1;
    const origin = this.pick(ORIGINS);
    const reasoning = this.chance(0.8) ? this.text(30) : undefined;
    const calls: ToolCall[] = [];
    const callCount = this.chance(0.5) ? 1 + Math.floor(this.next() * 2) : 0;
    for (let index = 0; index < callCount; index++) {
      const call: ToolCall = {
        id: `call_${this.turn}_${index}`,
        type: 'function',
        function: { name: 'read_file', arguments: JSON.stringify({ path: `src/${this.text(1)}.ts` }) },
      };
      if (this.chance(0.3)) call.function.thought_signature = this.blob(24);
      if (this.chance(0.3)) call.extra_content = { google: { thought_signature: this.blob(24) } };
      if (this.chance(0.3)) call.call_id = `fc_${this.turn}_${index}`;
      calls.push(call);
    }
    const message: AssistantMessage = {
      role: 'assistant',
      content: callCount > 0 && this.chance(0.5) ? null : this.text(25),
      origin,
      timestamp: this.turn,
    };
    if (calls.length > 0) message.tool_calls = calls;
    if (reasoning !== undefined) {
      if (this.chance(0.7)) message.reasoning = reasoning;
      if (this.chance(0.6)) message.reasoning_content = reasoning;
      if (this.chance(0.6)) message.reasoning_details = this.details(reasoning);
      if (this.chance(0.4)) message.anthropic_content_blocks = this.anthropicBlocks(reasoning, message);
      if (this.chance(0.4)) message.codex_reasoning_items = this.codexItems(calls);
    }
    if (this.chance(0.1)) message.reasoning_content = '';
    const results: Message[] = calls.map((call) => ({
      role: 'tool',
      tool_call_id: call.id,
      content: this.text(15),
      tool_name: 'read_file',
    }));
    return [message, ...results];
  }

  private details(reasoning: string): JsonObject[] {
    const details: JsonObject[] = [
      { type: 'reasoning.text', text: reasoning, signature: this.blob(40), format: 'anthropic-claude-v1', index: 0 },
    ];
    if (this.chance(0.5)) {
      details.push({ type: 'reasoning.encrypted', data: this.blob(60), format: 'openai-responses-v1', index: 1 });
    }
    if (this.chance(0.3)) {
      const record: JsonObject = { type: 'hermes.native_assistant', reasoning_opaque: this.blob(30) };
      if (this.chance(0.5)) record['extra_content'] = { google: { thought_signature: this.blob(20) } };
      details.push(record);
    }
    return details;
  }

  private anthropicBlocks(reasoning: string, message: AssistantMessage): JsonObject[] {
    const blocks: JsonObject[] = [{ type: 'thinking', thinking: reasoning, signature: this.blob(48) }];
    if (this.chance(0.2)) blocks.push({ type: 'redacted_thinking', data: this.blob(32) });
    if (typeof message.content === 'string') blocks.push({ type: 'text', text: message.content });
    for (const call of message.tool_calls ?? []) {
      blocks.push({ type: 'tool_use', id: call.id, name: call.function.name, input: { path: 'x' } });
    }
    return blocks;
  }

  private codexItems(calls: readonly ToolCall[]): JsonObject[] {
    const items: JsonObject[] = [];
    if (this.chance(0.2)) items.push({ type: 'compaction', encrypted_content: this.blob(50) });
    const item: JsonObject = {
      type: 'reasoning',
      id: `rs_${this.turn}`,
      summary: [{ type: 'summary_text', text: this.text(6) }],
      encrypted_content: this.blob(64),
    };
    const first = calls[0];
    if (first !== undefined && this.chance(0.5)) item['_precedes_call_id'] = first.call_id ?? first.id;
    items.push(item);
    return items;
  }

  /** A history of at least `count` messages: a system prompt, then user / assistant turns. */
  history(count: number): Message[] {
    const messages: Message[] = [this.system()];
    while (messages.length < count) {
      messages.push(this.user());
      messages.push(...this.assistantTurn());
    }
    return messages;
  }

  /** Messages a next turn appends: a user message and an assistant turn with its tool results. */
  nextTurn(): Message[] {
    return [this.user(), ...this.assistantTurn()];
  }
}
