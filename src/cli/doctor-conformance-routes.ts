import type { ProbeReport } from '../probe/probe-types.js';

/**
 * The routes of `docs/conformance.md`: every built-in emulator persona with its default model,
 * plus the models whose route rules differ on the same persona (Claude models that keep earlier
 * thinking or only the tool loop's, Bedrock's signed, unsigned and stripped families, Gemini
 * generations, Responses models with and without native compaction) and common models of the
 * relays. A route is a persona (`--provider emulator:NAME`) and a model (`--model`).
 */

/** One route of the matrix. */
export interface ConformanceRoute {
  persona: string;
  model: string;
}

const route = (persona: string, model: string): ConformanceRoute => ({ persona, model });

/** In the order the document lists them: chat-completions personas, then the native wire APIs. */
export const CONFORMANCE_ROUTES: readonly ConformanceRoute[] = [
  route('openrouter', 'anthropic/claude-sonnet-4.5'),
  route('openrouter', 'openai/gpt-5'),
  route('deepseek', 'deepseek-v4-flash'),
  route('deepseek', 'deepseek-v4-pro'),
  route('strict-mistral', 'magistral-medium-latest'),
  route('strict-groq', 'openai/gpt-oss-120b'),
  route('strict-cerebras', 'gpt-oss-120b'),
  route('strict-fireworks', 'accounts/fireworks/models/deepseek-v3p1'),
  route('copilot', 'claude-sonnet-4.5'),
  route('copilot', 'gpt-5'),
  route('gemini-openai', 'gemini-3-pro-preview'),
  route('gemini-openai', 'gemini-2.5-flash'),
  route('local', 'qwen3:8b'),
  route('anthropic', 'claude-opus-4-8'),
  route('anthropic', 'claude-sonnet-4-6'),
  route('anthropic', 'claude-sonnet-4-5'),
  route('anthropic', 'claude-haiku-4-5'),
  route('minimax', 'MiniMax-M3'),
  route('bedrock', 'us.anthropic.claude-sonnet-4-5-20250929-v1:0'),
  route('bedrock', 'us.anthropic.claude-opus-4-8-v1:0'),
  route('bedrock', 'us.deepseek.r1-v1:0'),
  route('bedrock', 'qwen.qwen3-32b-v1:0'),
  route('bedrock', 'moonshot.kimi-k2-thinking'),
  route('bedrock', 'openai.gpt-oss-120b-1:0'),
  route('gemini', 'gemini-3-pro-preview'),
  route('gemini', 'gemini-2.5-pro'),
  route('gemini', 'gemini-2.5-flash'),
  route('responses', 'gpt-5.4'),
  route('responses', 'gpt-5.6'),
];

/** One route's row: what it reads, and one probe report per way in. */
export interface ConformanceRow {
  route: ConformanceRoute;
  api: string;
  /** What the route table sends back, in words. */
  reads: string;
  /** Probe reports by way-in name. */
  cells: Record<string, ProbeReport>;
}

/** The whole matrix. */
export interface ConformanceMatrix {
  ways: { name: string; label: string }[];
  rows: ConformanceRow[];
}
