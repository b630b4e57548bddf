/**
 * The scripted model's input and output (scripted-model.ts), apart so its modes
 * (scripted-summary.ts, scripted-probe.ts) can name them without importing the model.
 */

/** One message of the conversation as the emulator decoded it from the request. */
export interface ScriptMessage {
  role: 'system' | 'user' | 'assistant' | 'tool';
  text: string;
  /** Assistant tool calls. */
  toolCalls?: { id: string; name: string; arguments: string }[];
  /** For tool results: the call answered. */
  toolCallId?: string;
  /** For assistant turns: the readable reasoning that came back on this turn, if any. */
  reasoning?: string;
  /**
   * For assistant turns: the emulator's reader knows this turn is not its own (a placeholder
   * signature, a tool call id it never issues). Counted apart, never as missing (SPEC §26.8).
   */
  foreign?: boolean;
}

/** What the emulator hands the model. */
export interface ScriptInput {
  messages: ScriptMessage[];
  /** Tool names offered in the request. */
  tools: string[];
}

/** What the model answers. */
export interface ScriptOutput {
  reasoning: string;
  content: string;
  toolCalls: { id: string; name: string; arguments: string }[];
}
