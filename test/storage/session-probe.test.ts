import { describe, expect, it } from 'vitest';
import { createMemorySessionStore } from '../../src/storage/memory-session-store.js';
import { isProbeSession, listUserSessions, probeMark } from '../../src/storage/session-probe.js';

/** SPEC §26.5: probe sessions are marked and left out of what lists the user's sessions. */
describe('probe sessions', () => {
  it('are marked, and a page of user sessions stays full however many probes are newer', async () => {
    const store = createMemorySessionStore();
    const mine = [];
    for (let index = 0; index < 3; index += 1) mine.push(await store.createSession({ title: `mine ${index}` }));
    for (let index = 0; index < 40; index += 1) await store.createSession({ modelConfig: probeMark('cli') });
    const probe = (await store.listSessions({ limit: 1 }))[0];
    expect(probe && isProbeSession(probe)).toBe(true);
    expect(isProbeSession(mine[0]!)).toBe(false);
    expect((await listUserSessions(store, 2)).map((session) => session.title)).toEqual(['mine 2', 'mine 1']);
    expect(await listUserSessions(store, 10)).toHaveLength(3);
    expect(await listUserSessions(store)).toHaveLength(3);
    // A branch of a probe session copies its model config: still a probe.
    const branch = await store.forkSession(probe!.id);
    expect(isProbeSession(branch)).toBe(true);
  });
});
