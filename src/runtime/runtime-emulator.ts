import { UsageError } from '../core/errors.js';
import type { Route } from '../core/route.js';
import { startChatEmulator } from '../emulators/chat-completions/chat-emulator.js';
import { installConnectTo } from './runtime-connect-to.js';

/** How each chat persona is reached: provider id, default model, and (Copilot) the real host it stands in for. */
interface PersonaRoute {
  provider: string;
  model: string;
  /** The production origin this persona emulates, when host-based rules depend on it. */
  realOrigin?: string;
}

/**
 * Persona → route facts. Provider ids are the real ones, so replay takes exactly the production
 * decisions; only Copilot needs its real host (SPEC §7.4 lifts `reasoning_opaque` by host), which
 * the connect-to mapping routes to the loopback emulator.
 */
const PERSONA_ROUTES: Record<string, PersonaRoute> = {
  openrouter: { provider: 'openrouter', model: 'anthropic/claude-sonnet-4.5' },
  deepseek: { provider: 'deepseek', model: 'deepseek-v4-flash' },
  'strict-mistral': { provider: 'mistral', model: 'magistral-medium-latest' },
  'strict-groq': { provider: 'groq', model: 'openai/gpt-oss-120b' },
  'strict-cerebras': { provider: 'cerebras', model: 'gpt-oss-120b' },
  'strict-fireworks': { provider: 'fireworks', model: 'accounts/fireworks/models/deepseek-v3p1' },
  copilot: { provider: 'copilot', model: 'claude-sonnet-4.5', realOrigin: 'https://api.githubcopilot.com' },
  'gemini-openai': { provider: 'gemini', model: 'gemini-3-pro-preview' },
  local: { provider: 'custom', model: 'qwen3:8b' },
};

/** Persona names `--provider emulator:NAME` accepts. */
export const EMULATOR_PERSONAS = Object.keys(PERSONA_ROUTES);

/** A running in-process emulator and the route that reaches it. */
export interface InProcessEmulator {
  route: Route;
  baseUrl: string;
  persona: string;
  close(): Promise<void>;
}

/** Starts the chat emulator for a persona on a free loopback port. */
export async function startInProcessEmulator(persona: string, model: string | undefined): Promise<InProcessEmulator> {
  const facts = PERSONA_ROUTES[persona];
  if (!facts) {
    throw new UsageError(`unknown emulator persona "${persona}" (expected one of: ${EMULATOR_PERSONAS.join(', ')})`);
  }
  const emulator = await startChatEmulator({ persona: persona as never });
  let baseUrl = emulator.baseUrl;
  if (facts.realOrigin) {
    installConnectTo(new Map([[facts.realOrigin, new URL(emulator.baseUrl).origin]]));
    baseUrl = `${facts.realOrigin}${new URL(emulator.baseUrl).pathname.replace(/\/$/, '')}`;
  }
  return {
    route: { api: 'chat_completions', provider: facts.provider, model: model || facts.model, baseUrl },
    baseUrl: emulator.baseUrl,
    persona,
    close: () => emulator.close(),
  };
}
