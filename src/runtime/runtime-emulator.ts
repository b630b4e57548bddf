import { UsageError } from '../core/errors.js';
import type { Route } from '../core/route.js';
import { startAnthropicEmulator } from '../emulators/anthropic-messages/anthropic-emulator.js';
import { startBedrockEmulator } from '../emulators/bedrock-converse/bedrock-converse-emulator.js';
import { startChatEmulator } from '../emulators/chat-completions/chat-emulator.js';
import { isChatPersonaName } from '../emulators/chat-completions/chat-emulator-types.js';
import { startGeminiEmulator } from '../emulators/gemini/gemini-emulator.js';
import { startResponsesEmulator } from '../emulators/responses/responses-emulator.js';
import { installConnectTo } from './runtime-connect-to.js';

/** How each chat persona is reached: provider id, default model, and (Copilot) the real host it stands in for. */
interface PersonaRoute {
  provider: string;
  model: string;
  /** The production origin this persona emulates, when host-based rules depend on it. */
  realOrigin?: string;
}

/**
 * Chat persona → route facts. Provider ids are the real ones, so replay takes exactly the
 * production decisions. Where a rule depends on the real host — Copilot's lift (SPEC §7.4), and
 * DeepSeek's and Gemini's rows, which a loopback URL would turn into the local fallback (SPEC §5)
 * — the route names the real host and the connect-to mapping routes it to the loopback emulator.
 */
const CHAT_PERSONA_ROUTES: Record<string, PersonaRoute> = {
  openrouter: { provider: 'openrouter', model: 'anthropic/claude-sonnet-4.5' },
  deepseek: { provider: 'deepseek', model: 'deepseek-v4-flash', realOrigin: 'https://api.deepseek.com' },
  'strict-mistral': { provider: 'mistral', model: 'magistral-medium-latest' },
  'strict-groq': { provider: 'groq', model: 'openai/gpt-oss-120b' },
  'strict-cerebras': { provider: 'cerebras', model: 'gpt-oss-120b' },
  'strict-fireworks': { provider: 'fireworks', model: 'accounts/fireworks/models/deepseek-v3p1' },
  copilot: { provider: 'copilot', model: 'claude-sonnet-4.5', realOrigin: 'https://api.githubcopilot.com' },
  'gemini-openai': {
    provider: 'gemini',
    model: 'gemini-3-pro-preview',
    realOrigin: 'https://generativelanguage.googleapis.com',
  },
  local: { provider: 'custom', model: 'qwen3:8b' },
};

/** Native wire-API emulators: `emulator:anthropic`, `emulator:bedrock`, `emulator:gemini`, `emulator:responses`. */
const NATIVE_FAMILIES = ['anthropic', 'bedrock', 'gemini', 'responses'] as const;

/** Persona names `--provider emulator:NAME` accepts. */
export const EMULATOR_PERSONAS = [...Object.keys(CHAT_PERSONA_ROUTES), ...NATIVE_FAMILIES];

/**
 * The route an emulator session replays to, without starting the emulator (for
 * `replay preview --session`): same provider, model and host class as a live run.
 */
export function emulatorPreviewRoute(persona: string, model: string | undefined): Route {
  const chat = CHAT_PERSONA_ROUTES[persona];
  if (chat) {
    const baseUrl = chat.realOrigin ? `${chat.realOrigin}/v1` : 'http://127.0.0.1/v1';
    return { api: 'chat_completions', provider: chat.provider, model: model || chat.model, baseUrl };
  }
  const native: Record<string, Route> = {
    anthropic: {
      api: 'anthropic_messages',
      provider: 'anthropic',
      model: 'claude-opus-4-8',
      baseUrl: 'http://127.0.0.1',
    },
    bedrock: {
      api: 'bedrock_converse',
      provider: 'bedrock',
      model: 'us.anthropic.claude-sonnet-4-5-20250929-v1:0',
      baseUrl: 'http://127.0.0.1',
    },
    gemini: { api: 'gemini', provider: 'google', model: 'gemini-3-pro-preview', baseUrl: 'http://127.0.0.1/v1beta' },
    responses: {
      api: 'codex_responses',
      provider: 'openai-responses',
      model: 'gpt-5.4',
      baseUrl: 'https://api.openai.com/v1',
    },
  };
  const route = native[persona];
  if (!route)
    throw new UsageError(`unknown emulator persona "${persona}" (expected one of: ${EMULATOR_PERSONAS.join(', ')})`);
  return model ? { ...route, model } : route;
}

/** A running in-process emulator and the route that reaches it. */
export interface InProcessEmulator {
  route: Route;
  /** A placeholder credential the emulator accepts (never a real key). */
  apiKey: string;
  baseUrl: string;
  persona: string;
  close(): Promise<void>;
}

/** Starts the emulator for a persona on a free loopback port. */
export async function startInProcessEmulator(persona: string, model: string | undefined): Promise<InProcessEmulator> {
  const apiKey = 'emulator-key';
  if (isChatPersonaName(persona)) {
    const facts = CHAT_PERSONA_ROUTES[persona] as PersonaRoute;
    const emulator = await startChatEmulator({ persona });
    let baseUrl = emulator.baseUrl;
    if (facts.realOrigin) {
      installConnectTo(new Map([[facts.realOrigin, new URL(emulator.baseUrl).origin]]));
      baseUrl = `${facts.realOrigin}${new URL(emulator.baseUrl).pathname.replace(/\/$/, '')}`;
    }
    return {
      route: { api: 'chat_completions', provider: facts.provider, model: model || facts.model, baseUrl },
      apiKey,
      baseUrl: emulator.baseUrl,
      persona,
      close: () => emulator.close(),
    };
  }
  switch (persona) {
    case 'anthropic': {
      const emulator = await startAnthropicEmulator();
      const route: Route = {
        api: 'anthropic_messages',
        provider: 'anthropic',
        model: model || 'claude-opus-4-8',
        baseUrl: emulator.baseUrl,
      };
      return { route, apiKey, baseUrl: emulator.baseUrl, persona, close: () => emulator.close() };
    }
    case 'bedrock': {
      const emulator = await startBedrockEmulator();
      const route: Route = {
        api: 'bedrock_converse',
        provider: 'bedrock',
        model: model || 'us.anthropic.claude-sonnet-4-5-20250929-v1:0',
        baseUrl: emulator.baseUrl,
      };
      return { route, apiKey, baseUrl: emulator.baseUrl, persona, close: () => emulator.close() };
    }
    case 'gemini': {
      const emulator = await startGeminiEmulator();
      const route: Route = {
        api: 'gemini',
        provider: 'google',
        model: model || 'gemini-3-pro-preview',
        baseUrl: emulator.baseUrl,
      };
      return { route, apiKey, baseUrl: emulator.baseUrl, persona, close: () => emulator.close() };
    }
    case 'responses': {
      const emulator = await startResponsesEmulator();
      // Responses issuers include the base URL (SPEC §12 `other:<base_url>`), and a fresh in-process
      // emulator gets a fresh port: reach it under OpenAI's stable origin so a resumed session is
      // the same issuer, exactly as in production.
      installConnectTo(new Map([['https://api.openai.com', new URL(emulator.baseUrl).origin]]));
      const route: Route = {
        api: 'codex_responses',
        provider: 'openai-responses',
        model: model || 'gpt-5.4',
        baseUrl: `https://api.openai.com${new URL(emulator.baseUrl).pathname.replace(/\/$/, '')}`,
      };
      return { route, apiKey, baseUrl: emulator.baseUrl, persona, close: () => emulator.close() };
    }
    default:
      throw new UsageError(`unknown emulator persona "${persona}" (expected one of: ${EMULATOR_PERSONAS.join(', ')})`);
  }
}
