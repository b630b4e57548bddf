import { afterEach, describe, expect, it } from 'vitest';
import { openPostgresSessionStore } from '../../src/storage/postgres-session-store.js';
import type { SessionStore } from '../../src/storage/session-store.js';
import { createTestDatabase, skipWithoutPostgres } from '../storage/postgres-test-database.js';
import {
  messageText,
  messagesConversation,
  responsesConversation,
  responseText,
  useFrontDoors,
} from './front-door-helpers.js';

/**
 * A fleet on PostgreSQL (SPEC §23.6, §25.6): the handle keys live in the shared database, so a
 * handle one gateway sealed opens on any other, and a client may alternate between them with no
 * session at all.
 */

const doors = useFrontDoors();
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function sharedStore(url: string): Promise<SessionStore> {
  const store = openPostgresSessionStore(url);
  cleanups.push(() => store.close());
  return store;
}

describe.skipIf(skipWithoutPostgres())('front doors on a PostgreSQL fleet', () => {
  it('a stateless client alternating between two gateways: every handle opens on the other one', async () => {
    const database = await createTestDatabase();
    cleanups.push(database.drop);
    const one = await doors.gateway(['deepseek'], { store: await sharedStore(database.url) });
    const two = await doors.gateway(['deepseek'], { store: await sharedStore(database.url) });
    const clients = [doors.anthropic(one.gateway), doors.anthropic(two.gateway)];
    const chat = messagesConversation(clients[0]!, 'deepseek');
    const [call] = await chat.turn('read the file notes.txt', { stream: false });
    expect(call?.stop_reason).toBe('tool_use');
    // The follow-up goes to the other gateway, which opens both handles of the tool loop.
    const other = messagesConversation(clients[1]!, 'deepseek');
    other.messages.push(...chat.messages);
    const [answer] = await other.turn('thanks', { stream: true });
    expect(messageText(answer!)).toContain('Reasoning continuity: intact');
    expect(messageText(answer!)).not.toContain('broken');
    const keys = await one.store.listHandleKeys();
    expect(keys).toHaveLength(1); // made once, shared
    const codex = responsesConversation(doors.openai(two.gateway), 'deepseek');
    await codex.turn('read the file notes.txt', { stream: false });
    const back = responsesConversation(doors.openai(one.gateway), 'deepseek');
    back.input.push(...codex.input);
    const [thanks] = await back.turn('thanks', { stream: false });
    expect(responseText(thanks!)).toContain('Reasoning continuity: intact (2/2).');
  });
});
