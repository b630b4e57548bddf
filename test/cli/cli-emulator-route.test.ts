import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openCliContext } from '../../src/cli/cli-context.js';
import { EMULATOR_PERSONA_ROUTES, EMULATOR_PERSONAS, emulatorPreviewRoute } from '../../src/cli/cli-emulator-route.js';
import { openRoute, type OpenedRoute } from '../../src/cli/cli-route.js';
import { UsageError } from '../../src/core/errors.js';
import { CHAT_PERSONA_NAMES } from '../../src/emulators/chat-completions/chat-emulator-types.js';
import { loadTransport } from '../../src/transports/transport-registry.js';

// `--provider emulator:NAME` (README): the CLI starts the emulator in-process and reaches it through
// the route's own origin mapping (`connectTo`, applied by the transports' pooled client), under
// the real origin where host-based rules depend on it; the process-wide `fetch` is never replaced.

const opened: OpenedRoute[] = [];
afterEach(async () => {
  for (const route of opened.splice(0)) await route.close();
});

async function open(persona: string): Promise<OpenedRoute> {
  const context = openCliContext({ HERMES_HOME: mkdtempSync(join(tmpdir(), 'hermes-cli-route-')) });
  const route = await openRoute({ provider: `emulator:${persona}` }, context, null, { write: () => true } as never);
  opened.push(route);
  return route;
}

/** One "hello there" turn on the opened route, sent with its origin mapping (and through `fetch` when given). */
async function sayHello(route: OpenedRoute, fetch?: typeof globalThis.fetch) {
  return (await loadTransport(route.route.api))
    .send({
      route: route.route,
      history: [{ role: 'user', content: 'hello there' }],
      tools: [],
      reasoning: { enabled: true },
      apiKey: route.apiKey,
      connectTo: route.connectTo,
      fetch,
    })
    .result();
}

describe('in-process emulator personas', () => {
  it('every chat persona of the emulator has a route, and no other chat persona exists', () => {
    const chat = EMULATOR_PERSONAS.filter((persona) => EMULATOR_PERSONA_ROUTES[persona]?.family === 'chat');
    expect(chat).toEqual([...CHAT_PERSONA_NAMES]);
    expect(EMULATOR_PERSONAS.slice(chat.length)).toEqual(['anthropic', 'minimax', 'bedrock', 'gemini', 'responses']);
  });

  it.each(EMULATOR_PERSONAS)('%s: the preview route is the live route without the loopback port', async (persona) => {
    const live = await open(persona);
    const preview = emulatorPreviewRoute(persona, undefined);
    expect(preview).toEqual({ ...live.route, baseUrl: live.route.baseUrl?.replace(/:\d+/, '') });
  });

  it('an unknown persona is a usage error naming the personas', () => {
    expect(() => emulatorPreviewRoute('nope', undefined)).toThrow(UsageError);
    expect(() => emulatorPreviewRoute('nope', undefined)).toThrow(/expected one of: openrouter, deepseek/);
  });

  it.each(['copilot', 'responses'])(
    '%s: the route names the real origin, its mapping reaches the emulator, the global fetch is untouched',
    async (persona) => {
      const original = globalThis.fetch;
      const route = await open(persona);
      expect(new URL(route.route.baseUrl ?? '').hostname).toMatch(/^api\.(githubcopilot|openai)\.com$/);
      expect(route.connectTo?.get(new URL(route.route.baseUrl ?? '').origin)).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(globalThis.fetch).toBe(original);
      expect((await sayHello(route)).content).toContain('You said: hello there');
    },
  );

  it.each(['deepseek', 'anthropic', 'bedrock', 'gemini', 'responses'])(
    "%s: a request's fetch replaces the pooled client, the origin mapping still applies",
    async (persona) => {
      const route = await open(persona);
      const urls: string[] = [];
      const counting: typeof globalThis.fetch = (input, init) => {
        urls.push(input instanceof Request ? input.url : String(input));
        return globalThis.fetch(input, init);
      };
      expect((await sayHello(route, counting)).content).toContain('You said: hello there');
      expect(urls).toHaveLength(1);
      expect(urls[0]).toMatch(/^http:\/\/127\.0\.0\.1:\d+\//);
    },
  );

  it('only personas answering for a real origin get an origin mapping', async () => {
    const route = await open('deepseek');
    expect(route.connectTo?.size).toBe(1);
    const local = await open('local');
    expect(local.connectTo).toBeUndefined();
  });
});
