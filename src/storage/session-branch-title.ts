/**
 * SPEC §24.9: the title of a branch created without one is `<parent title> #N`, where N is one
 * more than the highest `#k` among the titles of the parent's lineage (the tree under its root
 * session); the first branch is `#2`. An untitled parent gives `Branch of <short id> #2`.
 */
import type { SessionRecord, SessionStore } from './session-store.js';
import { MAX_SESSION_TITLE_LENGTH, shortenedTitle } from './session-store-rules.js';

/** Room a base keeps for its ` #N` suffix, so every numbered title fits the store's cap. */
const NUMBER_ROOM = 12;

/** Bounds the lineage walk (a damaged store with a parent cycle must not loop). */
const MAX_LINEAGE = 10_000;

const NUMBERED = / #(\d+)$/;

/** The short form of a session id: its random tail (`20261201-095313-751qh9` → `751qh9`). */
export function shortSessionId(id: string): string {
  const tail = id.slice(id.lastIndexOf('-') + 1);
  return tail !== '' && tail !== id ? tail : id.slice(0, 8);
}

/**
 * The title without its ` #N` suffix, or `Branch of <short id>` for an untitled session; cut
 * (with `…`) so `<base> #N` stays within the store's title cap.
 */
export function branchTitleBase(parent: Pick<SessionRecord, 'id' | 'title'>): string {
  const title = parent.title?.trim();
  const base = title ? title.replace(NUMBERED, '') : `Branch of ${shortSessionId(parent.id)}`;
  return shortenedTitle(base, MAX_SESSION_TITLE_LENGTH - NUMBER_ROOM);
}

/** `<base> #N` with N one more than the highest `#k` of `base` among `titles` (at least 2). */
export function numberedBranchTitle(base: string, titles: readonly (string | null)[]): string {
  let highest = 1;
  for (const title of titles) {
    if (title === null || !title.startsWith(`${base} #`)) continue;
    const match = NUMBERED.exec(title);
    if (match && title.length === base.length + match[0].length) highest = Math.max(highest, Number(match[1]));
  }
  return `${base} #${highest + 1}`;
}

/** The default title of a new branch of `parentId` (SPEC §24.9). */
export async function nextBranchTitle(store: SessionStore, parentId: string): Promise<string> {
  const parent = await store.getSession(parentId);
  if (!parent) return `Branch of ${shortSessionId(parentId)} #2`;
  const seen = new Set<string>([parent.id]);
  let root = parent;
  while (root.parentSessionId !== null && !seen.has(root.parentSessionId) && seen.size < MAX_LINEAGE) {
    const up = await store.getSession(root.parentSessionId);
    if (!up) break;
    seen.add(up.id);
    root = up;
  }
  const titles: (string | null)[] = [];
  const visited = new Set<string>();
  const queue: SessionRecord[] = [root];
  while (queue.length > 0 && visited.size < MAX_LINEAGE) {
    const session = queue.shift() as SessionRecord;
    if (visited.has(session.id)) continue;
    visited.add(session.id);
    titles.push(session.title);
    queue.push(...(await store.childSessions(session.id)));
  }
  return numberedBranchTitle(branchTitleBase(parent), titles);
}
