import { UsageError } from '../core/errors.js';
import type { Route } from '../core/route.js';

/**
 * What each in-process emulator persona (`--provider emulator:NAME`) stands for: its wire API,
 * provider id, default model, and the real origin a route names when host-based rules depend on
 * it. Provider ids are the real ones, so replay takes exactly the production decisions. Where a
 * rule depends on the real host — Copilot's lift (SPEC §7.4), DeepSeek's and Gemini's rows, which
 * a loopback URL would turn into the local fallback (SPEC §5), and the Responses issuer, which
 * includes the base URL (SPEC §12 `other:<base_url>`) so a fresh port would be a new issuer — the
 * route names the real origin and the CLI's connect-to fetch sends its bytes to the emulator.
 * Pure data: reading it loads no emulator.
 */
export interface EmulatorPersonaRoute {
  /** Which emulator serves the persona. */
  family: 'chat' | 'anthropic' | 'bedrock' | 'gemini' | 'responses';
  api: Route['api'];
  provider: string;
  model: string;
  /** The production origin the route names (requests to it reach the emulator). */
  realOrigin?: string;
  /** Path under the origin when the route's base URL is not the emulator's own (`/v1`, `/v1beta`). */
  basePath: string;
}

/** Every persona by name, chat personas first, in the order `--help` texts list them. */
export const EMULATOR_PERSONA_ROUTES: Readonly<Record<string, EmulatorPersonaRoute>> = {
  openrouter: chat('openrouter', 'anthropic/claude-sonnet-4.5'),
  deepseek: chat('deepseek', 'deepseek-v4-flash', 'https://api.deepseek.com'),
  'strict-mistral': chat('mistral', 'magistral-medium-latest'),
  'strict-groq': chat('groq', 'openai/gpt-oss-120b'),
  'strict-cerebras': chat('cerebras', 'gpt-oss-120b'),
  'strict-fireworks': chat('fireworks', 'accounts/fireworks/models/deepseek-v3p1'),
  copilot: chat('copilot', 'claude-sonnet-4.5', 'https://api.githubcopilot.com'),
  'gemini-openai': chat('gemini', 'gemini-3-pro-preview', 'https://generativelanguage.googleapis.com'),
  local: chat('custom', 'qwen3:8b'),
  anthropic: {
    family: 'anthropic',
    api: 'anthropic_messages',
    provider: 'anthropic',
    model: 'claude-opus-4-8',
    basePath: '',
  },
  // SPEC §24.2: MiniMax's Anthropic-compatible API; the `minimax` route is matched by its real URL.
  minimax: {
    family: 'anthropic',
    api: 'anthropic_messages',
    provider: 'minimax',
    model: 'MiniMax-M3',
    realOrigin: 'https://api.minimax.io',
    basePath: '/anthropic',
  },
  bedrock: {
    family: 'bedrock',
    api: 'bedrock_converse',
    provider: 'bedrock',
    model: 'us.anthropic.claude-sonnet-4-5-20250929-v1:0',
    basePath: '',
  },
  gemini: { family: 'gemini', api: 'gemini', provider: 'google', model: 'gemini-3-pro-preview', basePath: '/v1beta' },
  responses: {
    family: 'responses',
    api: 'codex_responses',
    provider: 'openai-responses',
    model: 'gpt-5.4',
    realOrigin: 'https://api.openai.com',
    basePath: '/v1',
  },
};

function chat(provider: string, model: string, realOrigin?: string): EmulatorPersonaRoute {
  return {
    family: 'chat',
    api: 'chat_completions',
    provider,
    model,
    basePath: '/v1',
    ...(realOrigin ? { realOrigin } : {}),
  };
}

/** Persona names `--provider emulator:NAME` accepts. */
export const EMULATOR_PERSONAS = Object.keys(EMULATOR_PERSONA_ROUTES);

/** The persona's facts; a {@link UsageError} lists the personas when the name is unknown. */
export function emulatorPersonaRoute(persona: string): EmulatorPersonaRoute {
  const facts = EMULATOR_PERSONA_ROUTES[persona];
  if (!facts)
    throw new UsageError(`unknown emulator persona "${persona}" (expected one of: ${EMULATOR_PERSONAS.join(', ')})`);
  return facts;
}

/**
 * The route an emulator session replays to, without starting the emulator (for
 * `replay preview --session`): same provider, model and host class as a live run.
 */
export function emulatorPreviewRoute(persona: string, model: string | undefined): Route {
  const facts = emulatorPersonaRoute(persona);
  const origin = facts.realOrigin ?? 'http://127.0.0.1';
  return {
    api: facts.api,
    provider: facts.provider,
    model: model || facts.model,
    baseUrl: `${origin}${facts.basePath}`,
  };
}
