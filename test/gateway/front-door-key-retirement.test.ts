import type Anthropic from '@anthropic-ai/sdk';
import { afterEach, describe, expect, it } from 'vitest';
import { openPostgresSessionStore } from '../../src/storage/postgres-session-store.js';
import type { SessionStore } from '../../src/storage/session-store.js';
import { openSqliteSessionStore } from '../../src/storage/sqlite-session-store.js';
import { stateDbPath } from '../../src/storage/store-paths.js';
import { makeSandbox, parseJson, runHermes, type Sandbox } from '../support/e2e.js';
import { createTestDatabase, POSTGRES_TEST_URL } from '../storage/postgres-test-database.js';
import { messagesAnswer, messagesConversation, messageText, useFrontDoors } from './front-door-helpers.js';

/**
 * `hermes gateway rotate-key --retire-old` on a fleet (SPEC §25.6, docs/gateway.md "Sealed
 * reasoning handles"): from the moment the command returns, no gateway sharing the store seals a
 * handle with a retired key, and no gateway opens one with it — not from its key cache, not from
 * what it remembers of handles it opened before.
 */

const doors = useFrontDoors();
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** The key id a handle names (`hermes.1.<key id>.<sealed bytes>`). */
function keyIdOf(handle: string | undefined): string | undefined {
  return handle?.split('.')[2];
}

/** The handles of every answer of a conversation so far. */
function handlesOf(messages: Anthropic.MessageParam[]): string[] {
  return messages.flatMap((message) =>
    typeof message.content === 'string'
      ? []
      : message.content.flatMap((block) => (block.type === 'thinking' ? [block.signature] : [])),
  );
}

interface Fleet {
  /** Opens one more connection to the shared store (one per gateway, as separate processes have). */
  connect(): SessionStore;
  /** Runs `hermes gateway rotate-key --retire-old --json` against the shared store. */
  retire(): Promise<{ id: string; retired: number }>;
}

function sqliteFleet(): Fleet {
  const sandbox: Sandbox = makeSandbox();
  return {
    connect: () => {
      const store = openSqliteSessionStore(stateDbPath(sandbox.home));
      cleanups.push(() => store.close());
      return store;
    },
    retire: async () => parseJson(await runHermes(['gateway', 'rotate-key', '--retire-old', '--json'], sandbox)),
  };
}

async function postgresFleet(): Promise<Fleet> {
  const database = await createTestDatabase();
  cleanups.push(database.drop);
  const sandbox = makeSandbox();
  return {
    connect: () => {
      const store = openPostgresSessionStore(database.url);
      cleanups.push(() => store.close());
      return store;
    },
    retire: async () =>
      parseJson(
        await runHermes(['gateway', 'rotate-key', '--retire-old', '--json'], sandbox, {
          HERMES_DATABASE_URL: database.url,
        }),
      ),
  };
}

const FLEETS: [string, () => Promise<Fleet>][] = [['SQLite', async () => sqliteFleet()]];
if (POSTGRES_TEST_URL !== undefined) FLEETS.push(['PostgreSQL', postgresFleet]);

describe.each(FLEETS)('rotate-key --retire-old on two gateways sharing a %s store', (_name, makeFleet) => {
  it('takes effect on both gateways when the command returns: new handles use the new key, old ones open nowhere', async () => {
    const fleet = await makeFleet();
    const one = await doors.gateway(['anthropic'], { store: fleet.connect() });
    const two = await doors.gateway(['anthropic'], { store: fleet.connect() });
    // Both gateways seal and open with the first key: each holds it, and what it opened, in memory.
    const earlier = messagesConversation(doors.anthropic(one.gateway), 'anthropic');
    await earlier.turn('read the file notes.txt', { stream: false });
    const onTwo = messagesConversation(doors.anthropic(two.gateway), 'anthropic');
    onTwo.messages.push(...earlier.messages);
    const [before] = await onTwo.turn('thanks', { stream: false });
    expect(messageText(before!)).toContain('Reasoning continuity: intact (2/2).');
    const oldKey = keyIdOf(handlesOf(earlier.messages)[0]);
    expect(oldKey).toBeDefined();

    const rotation = await fleet.retire();
    expect(rotation.retired).toBe(1);

    for (const gateway of [one.gateway, two.gateway]) {
      // A new handle, on either gateway, right away: sealed with the new key.
      const fresh = messagesConversation(doors.anthropic(gateway), 'anthropic');
      const [call] = await fresh.turn('read the file notes.txt', { stream: true });
      expect(keyIdOf(messagesAnswer(call!).handle)).toBe(rotation.id);
      // The handles sealed before the retirement open on neither gateway, although both opened them before.
      const replayed = messagesConversation(doors.anthropic(gateway), 'anthropic');
      replayed.messages.push(...onTwo.messages);
      const [after] = await replayed.turn('and now?', { stream: false });
      expect(messageText(after!)).not.toContain('Reasoning continuity: intact');
      expect(handlesOf(replayed.messages).map(keyIdOf).at(-1)).toBe(rotation.id);
    }
  });
});
