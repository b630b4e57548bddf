/**
 * The one module that reads model ids (docs/architecture.md, "Route resolution"): every rule that
 * depends on which model a route serves asks a predicate here, and the policy modules keep only
 * what each answer means for the wire. Pure string work; no module outside replay/ tests a model id.
 */

// ---------------------------------------------------------------------------------------------
// Claude (SPEC §9.1, WIRE.md §2.1)
// ---------------------------------------------------------------------------------------------

/** A parsed Claude model id: family plus version. */
export interface ClaudeModelVersion {
  family: string;
  major: number;
  minor: number;
}

/** Result of parsing a model id: not Claude at all, a Claude id we could not parse, or a version. */
export type ClaudeModelParse =
  | { kind: 'not-claude' }
  | { kind: 'legacy-claude-3' }
  | { kind: 'unparsed-claude' }
  | { kind: 'claude'; version: ClaudeModelVersion };

const CLAUDE_FAMILIES = 'opus|sonnet|haiku|fable|mythos';
// `claude-sonnet-4-20250514` is 4.0: the minor is 1–2 digits and must not be followed by another
// digit, so an 8-digit date never reads as a minor.
const MODERN_CLAUDE = new RegExp(`claude-(${CLAUDE_FAMILIES})-(\\d{1,2})(?:[-.](\\d{1,2}))?(?!\\d)`);

/**
 * Parses a model id. Provider prefixes and suffixes are tolerated: Bedrock
 * `us.anthropic.claude-opus-4-8-v1:0`, Vertex `claude-opus-4-8@20251001`, relay `anthropic/claude-…`.
 */
export function parseClaudeModel(model: string): ClaudeModelParse {
  const lowered = model.trim().toLowerCase();
  const start = lowered.indexOf('claude');
  if (start < 0) return { kind: 'not-claude' };
  const id = lowered.slice(start);
  if (id.startsWith('claude-3') || id.startsWith('claude-2') || id.startsWith('claude-instant')) {
    return { kind: 'legacy-claude-3' };
  }
  const match = MODERN_CLAUDE.exec(id);
  if (!match) return { kind: 'unparsed-claude' };
  return {
    kind: 'claude',
    version: { family: match[1] ?? '', major: Number(match[2]), minor: match[3] === undefined ? 0 : Number(match[3]) },
  };
}

// ---------------------------------------------------------------------------------------------
// Anthropic-compatible relays (SPEC §9.2, §24.2)
// ---------------------------------------------------------------------------------------------

const KIMI_MODEL_PREFIXES = [
  'kimi-',
  'kimi_',
  'moonshot-',
  'moonshot_',
  'k1.',
  'k1-',
  'k2.',
  'k2-',
  'k25',
  'k2.5',
  'k3.',
  'k3-',
];

function lastSegment(model: string): string {
  const segments = model.trim().toLowerCase().split('/');
  return segments[segments.length - 1] ?? '';
}

/** A Kimi / Moonshot model by its last path segment (`kimi-k2-thinking`, `moonshotai/k2.5`, `k3`). */
export function isKimiModel(model: string): boolean {
  const segment = lastSegment(model);
  return segment === 'k3' || KIMI_MODEL_PREFIXES.some((prefix) => segment.startsWith(prefix));
}

/**
 * A DeepSeek thinking model — the reasoner, R1 and V4 families — however the host prefixes it
 * (`deepseek-reasoner`, `deepseek-r1-0528`, Bedrock `us.deepseek.r1-v1:0`, `deepseek-v4-flash`).
 * `deepseek-chat`, `deepseek-coder` and V3 are not: they answer without thinking.
 */
export function isDeepSeekThinkingModel(model: string): boolean {
  const segment = lastSegment(model);
  return segment.includes('deepseek') && /(?:^|[-._])(?:reasoner|r1|v4)(?:[-._:]|$)/.test(segment);
}

/**
 * SPEC §25.2 (narrowing §24.2): exactly the model id `MiniMax-M3`, case-insensitive. Look-alikes
 * (`MiniMax-M3-preview`, `minimax-m3-pro`) are other models and keep the budget form.
 */
export function isMiniMaxM3(model: string): boolean {
  return model.trim().toLowerCase() === 'minimax-m3';
}

// ---------------------------------------------------------------------------------------------
// Chat-completions request flags (SPEC §8, WIRE §1.3, §1.6) and carrier reads (SPEC §7.4)
// ---------------------------------------------------------------------------------------------

/** Kimi K3 takes `reasoning_effort` beside `thinking.type` (WIRE §1.3). */
export function isKimiK3(model: string): boolean {
  return /kimi-k3/i.test(model);
}

/** Kimi models that keep every prior thinking block with `thinking.keep: "all"` (SPEC §8): all but K2.5. */
export function keepsAllKimiThinking(model: string): boolean {
  const lowered = model.toLowerCase();
  return lowered.includes('kimi') && !lowered.includes('kimi-k2.5');
}

/** A Qwen model (`qwen3-max`, `Qwen/Qwen3-8B`). */
export function isQwenModel(model: string): boolean {
  return model.toLowerCase().includes('qwen');
}

/** GLM 4.5 or later (`glm-4.5`, `glm-4.7`, `glm-5`, `GLM-5.1-air`, ...), the GLMs that think (SPEC §8). */
export function isThinkingGlm(model: string): boolean {
  const match = /glm-(\d+)(?:\.(\d+))?/i.exec(model);
  if (!match) return false;
  const major = Number(match[1]);
  const minor = Number(match[2] ?? 0);
  return major > 4 || (major === 4 && minor >= 5);
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

/** SPEC §7.4: a Gemini or Gemma model id, which reads the message-level `extra_content` signature. */
export function isGeminiOrGemma(model: string): boolean {
  return /gemini|gemma/i.test(model);
}

/** True when the lower-cased model id contains any of `parts` (the must-echo table's model column, SPEC §4). */
export function modelMentions(model: string, parts: readonly string[]): boolean {
  const lowered = model.toLowerCase();
  return parts.some((part) => lowered.includes(part));
}

// ---------------------------------------------------------------------------------------------
// Responses (SPEC §24.7)
// ---------------------------------------------------------------------------------------------

/** The model line that compacts natively on the server (SPEC §24.7): the id contains `gpt-5.6`. */
export function compactsNatively(model: string): boolean {
  return model.toLowerCase().includes('gpt-5.6');
}

// ---------------------------------------------------------------------------------------------
// Gemini (SPEC §11, WIRE.md §4.1)
// ---------------------------------------------------------------------------------------------

/** Strips the resource prefixes Google accepts in front of a model id. */
export function normalizeGeminiModel(model: string): string {
  const trimmed = model.trim();
  const slash = trimmed.lastIndexOf('/');
  return slash >= 0 ? trimmed.slice(slash + 1) : trimmed;
}

/** Model family and generation from a model id. */
export function geminiModelFamily(model: string): { family: string | null; generation: number | null } {
  const id = normalizeGeminiModel(model).toLowerCase();
  const match = /^(gemini|gemma)-(\d+)(?:\.(\d+))?/.exec(id);
  if (match) {
    const generation = Number(match[2]);
    return { family: `${match[1]}-${generation}.${match[3] ?? '0'}`, generation };
  }
  // Unversioned aliases (`gemini-flash-latest`) can move between generations: only the exact id matches.
  return { family: /^(gemini|gemma)\b/.test(id) ? id : null, generation: null };
}

// ---------------------------------------------------------------------------------------------
// Bedrock Converse (SPEC §10, WIRE.md §3.1)
// ---------------------------------------------------------------------------------------------

/** The Bedrock model families the policy table has a row for (bedrock-converse-policy.ts). */
export type BedrockModelFamily = 'claude-adaptive' | 'claude' | 'deepseek' | 'kimi' | 'qwen' | 'gpt-oss' | 'minimax';

const GEOGRAPHIC_PREFIX = /^(?:us|eu|apac|us-gov|global|jp|au|ca|in)\./;

/**
 * The base model id: an inference-profile or model ARN keeps only its last path segment, and a
 * cross-region prefix (`us.`, `eu.`, `apac.`, `global.`, …) is removed, so
 * `us.anthropic.claude-sonnet-4-6` → `anthropic.claude-sonnet-4-6`. Lower-cased for matching.
 */
export function bedrockBaseModelId(modelId: string): string {
  const trimmed = modelId.trim().toLowerCase();
  const lastPart = trimmed.startsWith('arn:') ? (trimmed.split('/').pop() ?? trimmed) : trimmed;
  return lastPart.replace(GEOGRAPHIC_PREFIX, '');
}

const BEDROCK_CLAUDE_VERSION = /^anthropic\.claude-(opus|sonnet|haiku|[a-z]+)-(\d+)(?:-(\d{1,2}))?(?!\d)/;

/**
 * Claude models that take `thinking: {type: "adaptive"}` on Bedrock (WIRE.md §3.1: Sonnet 4.6+,
 * and Opus 4.6+ per `vercel-issue-11227-opus-4-6.json`); any other named family from 5.0 on. An
 * 8-digit date suffix is not a minor version (`claude-sonnet-4-20250514` is 4.0).
 */
function isAdaptiveBedrockClaude(baseModelId: string): boolean {
  const match = BEDROCK_CLAUDE_VERSION.exec(baseModelId);
  if (!match) return false;
  const family = match[1] ?? '';
  const major = Number(match[2]);
  const minor = match[3] === undefined ? 0 : Number(match[3]);
  const version = major + minor / 100;
  if (family === 'opus' || family === 'sonnet') return version >= 4.06;
  return version >= 5;
}

/** The policy family of a Bedrock model id (first match wins), or null for a model without a row. */
export function bedrockModelFamily(modelId: string): BedrockModelFamily | null {
  const id = bedrockBaseModelId(modelId);
  if (id.startsWith('anthropic.claude-')) return isAdaptiveBedrockClaude(id) ? 'claude-adaptive' : 'claude';
  if (id.startsWith('deepseek.')) return 'deepseek';
  if (id.startsWith('moonshot.') || id.startsWith('moonshotai.')) return 'kimi';
  if (id.startsWith('qwen.')) return 'qwen';
  if (id.startsWith('openai.gpt-oss')) return 'gpt-oss';
  if (id.startsWith('minimax.')) return 'minimax';
  return null;
}
