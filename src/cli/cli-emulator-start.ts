import type { Route } from '../core/route.js';
import type { ChatPersonaName } from '../emulators/chat-completions/chat-emulator-types.js';
import { emulatorPersonaRoute, type EmulatorPersonaRoute } from './cli-emulator-route.js';
import { requestLogLimits } from './emulate-options.js';

/**
 * Starts the in-process emulator behind `--provider emulator:NAME` (and the offline default).
 * Each family's emulator module is loaded with `import()` here, so a command that does not use an
 * emulator never loads one, and a persona loads only its own family.
 */

/** A running in-process emulator and the route that reaches it. */
export interface InProcessEmulator {
  route: Route;
  /** A placeholder credential the emulator accepts (never a real key). */
  apiKey: string;
  /** The emulator's own loopback URL (what the CLI prints). */
  baseUrl: string;
  persona: string;
  /**
   * Origins the route names that must reach the emulator (real origin → loopback origin): the
   * CLI's connect-to fetch applies them. Empty when the route names the loopback URL itself.
   */
  connectTo: Map<string, string>;
  close(): Promise<void>;
}

/** A started emulator: its base URL and how to stop it. */
interface StartedEmulator {
  baseUrl: string;
  close(): Promise<void>;
}

/** Starts the emulator for a persona on a free loopback port. */
export async function startInProcessEmulator(persona: string, model: string | undefined): Promise<InProcessEmulator> {
  const facts = emulatorPersonaRoute(persona);
  const emulator = await startFamily(facts, persona);
  const loopback = new URL(emulator.baseUrl);
  const connectTo = new Map<string, string>();
  let baseUrl = emulator.baseUrl;
  if (facts.realOrigin) {
    connectTo.set(facts.realOrigin, loopback.origin);
    baseUrl = `${facts.realOrigin}${loopback.pathname.replace(/\/$/, '') || facts.basePath}`;
  }
  return {
    route: { api: facts.api, provider: facts.provider, model: model || facts.model, baseUrl },
    apiKey: 'emulator-key',
    baseUrl: emulator.baseUrl,
    persona,
    connectTo,
    close: () => emulator.close(),
  };
}

async function startFamily(facts: EmulatorPersonaRoute, persona: string): Promise<StartedEmulator> {
  switch (facts.family) {
    case 'chat': {
      const { startChatEmulator } = await import('../emulators/chat-completions/chat-emulator.js');
      return startChatEmulator({ persona: persona as ChatPersonaName, requestLog: requestLogLimits({}) });
    }
    case 'anthropic': {
      const { startAnthropicEmulator } = await import('../emulators/anthropic-messages/anthropic-emulator.js');
      return startAnthropicEmulator({ requestLog: requestLogLimits({}) });
    }
    case 'bedrock': {
      const { startBedrockEmulator } = await import('../emulators/bedrock-converse/bedrock-converse-emulator.js');
      return startBedrockEmulator({ requestLog: requestLogLimits({}) });
    }
    case 'gemini': {
      const { startGeminiEmulator } = await import('../emulators/gemini/gemini-emulator.js');
      return startGeminiEmulator({ requestLog: requestLogLimits({}) });
    }
    case 'responses': {
      const { startResponsesEmulator } = await import('../emulators/responses/responses-emulator.js');
      return startResponsesEmulator({ requestLog: requestLogLimits({}) });
    }
  }
}
