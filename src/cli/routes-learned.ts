import { readRejectedThinking } from '../replay/replay-recovery.js';
import {
  anthropicCompactionOffRoutes,
  encryptedReplayOffRoutes,
  nativeCompactionOffRoutes,
} from '../runtime/runtime-route-memory.js';
import type { SessionRecord, SessionStore } from '../storage/session-store.js';

/**
 * What sessions learned that applies to the session only (SPEC §9.4, §12, §24.7, §24.8), beside
 * the store-wide verdicts of SPEC §23.1: rejected thinking-signature fingerprints, the Responses
 * encrypted-replay kill switch, native compaction turned off. `hermes routes verdicts` and
 * `hermes doctor` list them so nothing a session learned is invisible.
 */
export interface SessionLearned {
  sessionId: string;
  title: string | null;
  provider: string | null;
  model: string | null;
  /** How many signed-thinking fingerprints the session never sends again. */
  rejectedSignatures: number;
  /** Route keys whose encrypted Responses reasoning the session no longer replays. */
  encryptedReplayOff: string[];
  /** Route keys whose server-side compaction the session turned off (Responses, SPEC §24.7; Anthropic, §26.4). */
  nativeCompactionOff: string[];
}

/** How many of the newest sessions are read for session-scoped learnings. */
const SCAN_LIMIT = 1000;

/** The learnings of one session, or null when it learned nothing session-scoped. */
export function sessionLearned(session: SessionRecord): SessionLearned | null {
  const learned: SessionLearned = {
    sessionId: session.id,
    title: session.title,
    provider: session.provider,
    model: session.model,
    rejectedSignatures: readRejectedThinking(session.modelConfig).length,
    encryptedReplayOff: encryptedReplayOffRoutes(session.modelConfig),
    nativeCompactionOff: [
      ...nativeCompactionOffRoutes(session.modelConfig),
      ...anthropicCompactionOffRoutes(session.modelConfig),
    ],
  };
  const any = learned.rejectedSignatures > 0 || learned.encryptedReplayOff.length || learned.nativeCompactionOff.length;
  return any ? learned : null;
}

/** Session-scoped learnings of the newest sessions, newest first. */
export async function listSessionLearned(store: SessionStore): Promise<SessionLearned[]> {
  const sessions = await store.listSessions({ limit: SCAN_LIMIT });
  return sessions.flatMap((session) => sessionLearned(session) ?? []);
}

/** One readable line per learning: `4 rejected thinking signatures (never sent again)`. */
export function describeSessionLearned(learned: SessionLearned): string[] {
  const lines: string[] = [];
  const count = learned.rejectedSignatures;
  if (count > 0) lines.push(`${count} rejected thinking signature${count === 1 ? '' : 's'} (never sent again)`);
  for (const key of learned.encryptedReplayOff) lines.push(`encrypted reasoning no longer replayed to ${key}`);
  for (const key of learned.nativeCompactionOff) lines.push(`native compaction off for ${key}`);
  return lines;
}

/** `SESSION (provider · model)` for the readable views. */
export function sessionLabel(learned: SessionLearned): string {
  const route = [learned.provider, learned.model].filter(Boolean).join(' · ');
  return `${learned.sessionId}${route ? ` (${route})` : ''}`;
}
