/**
 * Model-id facts the provider table needs for its reasoning request flags (WIRE §1.3, §1.6):
 * which Kimi models take `reasoning_effort`, and which chat-template switch a vLLM-served model
 * reads. Model ids are matched in replay/, never in the layers above it.
 */

/** Kimi K3 takes `reasoning_effort` beside `thinking.type` (WIRE §1.3). */
export function isKimiK3(model: string): boolean {
  return /kimi-k3/i.test(model);
}

/**
 * The vLLM chat-template switch that turns thinking on for `model` (WIRE §1.6): Qwen3 reads
 * `enable_thinking`; DeepSeek-V3.1, Granite and Kimi read `thinking`; other models have none.
 */
export function vllmThinkingSwitch(model: string): 'enable_thinking' | 'thinking' | null {
  if (/qwen/i.test(model)) return 'enable_thinking';
  if (/deepseek|granite|kimi/i.test(model)) return 'thinking';
  return null;
}
