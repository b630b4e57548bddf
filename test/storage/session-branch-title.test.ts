/** SPEC §24.9: default branch titles `<parent title> #N` numbered across the lineage. */
import { describe, expect, it } from 'vitest';
import { createMemorySessionStore } from '../../src/storage/memory-session-store.js';
import {
  branchTitleBase,
  nextBranchTitle,
  numberedBranchTitle,
  shortSessionId,
} from '../../src/storage/session-branch-title.js';

describe('SPEC §24.9 branch titles', () => {
  it('the first branch of a titled session is #2; later ones count up across the whole lineage', async () => {
    const store = createMemorySessionStore();
    const root = await store.createSession({ title: 'Plan' });
    const first = await store.forkSession(root.id, { title: await nextBranchTitle(store, root.id) });
    expect(first.title).toBe('Plan #2');
    // A branch of the branch and a second branch of the root both continue the same count.
    const nested = await store.forkSession(first.id, { title: await nextBranchTitle(store, first.id) });
    expect(nested.title).toBe('Plan #3');
    expect(await nextBranchTitle(store, root.id)).toBe('Plan #4');
  });

  it('an untitled parent gives "Branch of <short id> #2", then #3', async () => {
    const store = createMemorySessionStore();
    const root = await store.createSession({ id: '20261201-095313-751qh9' });
    const title = await nextBranchTitle(store, root.id);
    expect(title).toBe('Branch of 751qh9 #2');
    await store.forkSession(root.id, { title });
    expect(await nextBranchTitle(store, root.id)).toBe('Branch of 751qh9 #3');
  });

  it('only exact "<base> #k" titles count; another lineage with the same title does not', async () => {
    expect(numberedBranchTitle('Plan', ['Plan', 'Plan #7 notes', 'Planner #9', 'Plan #4', null])).toBe('Plan #5');
    expect(branchTitleBase({ id: 'x', title: 'Plan #12' })).toBe('Plan');
    expect(shortSessionId('abcdefghijkl')).toBe('abcdefgh');
    const store = createMemorySessionStore();
    const other = await store.createSession({ title: 'Plan' });
    await store.forkSession(other.id, { title: 'Plan #9' });
    const mine = await store.createSession({ title: 'Plan' });
    expect(await nextBranchTitle(store, mine.id)).toBe('Plan #2');
  });
});
