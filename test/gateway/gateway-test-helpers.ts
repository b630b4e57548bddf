import { mkdtempSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AssistantMessage, Message } from '../../src/core/message.js';
import { startChatEmulator } from '../../src/emulators/chat-completions/chat-emulator.js';
import type { ChatPersonaName, RunningChatEmulator } from '../../src/emulators/chat-completions/chat-emulator-types.js';
import { createGatewayApp } from '../../src/gateway/gateway-app.js';
import { startGateway, type RunningGateway } from '../../src/gateway/gateway-serve.js';
import type { GatewayOptions, GatewayRoute } from '../../src/gateway/gateway-types.js';
import { silentLogger } from '../../src/logging/logger.js';
import { openSqliteSessionStore } from '../../src/storage/sqlite-session-store.js';
import type { SessionStore } from '../../src/storage/session-store.js';
import { stateDbPath } from '../../src/storage/store-paths.js';

/** Route facts of the chat personas the gateway tests use (provider ids as in production). */
export const PERSONA_ROUTES: Record<'deepseek' | 'openrouter', { provider: string; model: string }> = {
  deepseek: { provider: 'deepseek', model: 'deepseek-v4-flash' },
  openrouter: { provider: 'openrouter', model: 'anthropic/claude-sonnet-4.5' },
};

/** A HERMES_HOME and a workspace holding notes.txt. */
export function makeGatewaySandbox(): { home: string; workspace: string; dbPath: string } {
  const home = realpathSync(mkdtempSync(join(tmpdir(), 'hermes-gateway-home-')));
  const workspace = realpathSync(mkdtempSync(join(tmpdir(), 'hermes-gateway-ws-')));
  writeFileSync(join(workspace, 'notes.txt'), 'alpha beta\n');
  return { home, workspace, dbPath: stateDbPath(home) };
}

/** A chat emulator plus the gateway route that reaches it. */
export async function startPersona(
  persona: ChatPersonaName & keyof typeof PERSONA_ROUTES,
): Promise<{ emulator: RunningChatEmulator; route: GatewayRoute }> {
  const emulator = await startChatEmulator({ persona });
  const facts = PERSONA_ROUTES[persona];
  return {
    emulator,
    route: {
      route: { api: 'chat_completions', provider: facts.provider, model: facts.model, baseUrl: emulator.baseUrl },
      apiKey: 'sk-test-provider',
    },
  };
}

/** Gateway options over a SQLite store, with a silent logger. */
export function gatewayOptions(
  store: SessionStore,
  route: GatewayRoute,
  workspace: string,
  extra: Partial<GatewayOptions> = {},
): GatewayOptions {
  return { store, route, workspace, yolo: false, logger: silentLogger(), ...extra };
}

/** A gateway on 127.0.0.1, an ephemeral port, over the state.db at `dbPath` (opened here, closed by `close`). */
export async function startTestGateway(
  dbPath: string,
  route: GatewayRoute,
  workspace: string,
  extra: Partial<GatewayOptions> = {},
): Promise<RunningGateway & { store: SessionStore }> {
  const store = openSqliteSessionStore(dbPath);
  const gateway = await startGateway({ ...gatewayOptions(store, route, workspace, extra), host: '127.0.0.1', port: 0 });
  return {
    ...gateway,
    store,
    close: async () => {
      await gateway.close();
      await store.close();
    },
  };
}

/** The DeepSeek persona, a gateway sandbox, a store over its state.db (closed through `defer`) and the app over them. */
export async function startDeepseekApp(
  defer: (cleanup: () => Promise<void>) => void,
  extra: Partial<GatewayOptions> = {},
) {
  const { emulator, route } = await startPersona('deepseek');
  const sandbox = makeGatewaySandbox();
  const store = openSqliteSessionStore(sandbox.dbPath);
  defer(async () => {
    await emulator.close();
    await store.close();
  });
  return { emulator, route, sandbox, store, app: testApp(store, route, sandbox.workspace, extra) };
}

/** The app value over a store (no port). */
export function testApp(
  store: SessionStore,
  route: GatewayRoute,
  workspace: string,
  extra: Partial<GatewayOptions> = {},
) {
  return createGatewayApp(gatewayOptions(store, route, workspace, extra));
}

/** Stored messages of a session, read through a fresh store handle (what state.db holds). */
export async function storedMessages(dbPath: string, sessionId: string): Promise<Message[]> {
  const store = openSqliteSessionStore(dbPath);
  try {
    return await store.listMessages(sessionId);
  } finally {
    await store.close();
  }
}

/** Assistant messages of a list. */
export function assistants(messages: readonly Message[]): AssistantMessage[] {
  return messages.filter((message): message is AssistantMessage => message.role === 'assistant');
}

/** Assistant messages of a chat-completions request body. */
export function sentAssistants(body: unknown): Record<string, unknown>[] {
  const messages = (body as { messages?: Record<string, unknown>[] }).messages ?? [];
  return messages.filter((message) => message['role'] === 'assistant');
}

/** Runs `work` over `items` with at most `limit` in flight; results in input order. */
export async function boundedAll<T, R>(
  items: readonly T[],
  limit: number,
  work: (item: T) => Promise<R>,
): Promise<R[]> {
  const results: R[] = new Array<R>(items.length);
  let next = 0;
  const workers = Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) {
      const index = next;
      next += 1;
      results[index] = await work(items[index] as T);
    }
  });
  await Promise.all(workers);
  return results;
}
