import { UsageError } from '../core/errors.js';
import type { SessionRecord, SessionStore } from '../storage/session-store.js';

/**
 * Which stored session `hermes chat --resume VALUE` and `-c` mean. Sessions with no message are
 * never chosen by `-c` or `latest` (nothing to continue). A chat session records the directory
 * it started in under the model-config key {@link WORKSPACE_KEY}; `-c` prefers the newest one
 * started in the current directory.
 */

/** Session model-config key holding the working directory a chat session started in. */
export const WORKSPACE_KEY = 'workspace';

/** How many of the newest sessions `-c`, `latest` and title prefixes look through. */
const SCAN_LIMIT = 1000;

/** The session's starting directory, when it recorded one. */
export function sessionWorkspace(session: SessionRecord): string | null {
  const value = session.modelConfig[WORKSPACE_KEY];
  return typeof value === 'string' ? value : null;
}

async function nonEmptySessions(store: SessionStore): Promise<SessionRecord[]> {
  return (await store.listSessions({ limit: SCAN_LIMIT })).filter((session) => session.messageCount > 0);
}

/**
 * `--resume VALUE`: a session id, `latest` (the newest non-empty session), or a title — exact,
 * else a unique prefix (case-insensitive). Unknown or ambiguous values are a usage error naming
 * the candidates.
 */
export async function resumeTarget(store: SessionStore, value: string): Promise<SessionRecord> {
  const byId = await store.getSession(value);
  if (byId) return byId;
  const sessions = await nonEmptySessions(store);
  if (value === 'latest') {
    const latest = sessions[0];
    if (!latest) throw new UsageError('no session to resume yet: start one with hermes chat');
    return latest;
  }
  const wanted = value.toLowerCase();
  const titled = (await store.listSessions({ limit: SCAN_LIMIT })).filter((session) => session.title !== null);
  const exact = titled.filter((session) => session.title === value);
  if (exact.length === 1) return exact[0] as SessionRecord;
  const matches = exact.length
    ? exact
    : titled.filter((session) => (session.title ?? '').toLowerCase().startsWith(wanted));
  if (matches.length === 1) return matches[0] as SessionRecord;
  if (matches.length === 0) {
    throw new UsageError(`no session "${value}" (see hermes sessions list)`);
  }
  const shown = matches.slice(0, 10).map((session) => `  ${session.id}  "${session.title ?? ''}"`);
  const more = matches.length > 10 ? `\n  … and ${matches.length - 10} more` : '';
  throw new UsageError(`"${value}" matches ${matches.length} sessions; resume one by id:\n${shown.join('\n')}${more}`);
}

/**
 * `-c`: the newest non-empty session started in `cwd`, else the newest non-empty one anywhere
 * (`note` says so in one line).
 */
export async function continueTarget(
  store: SessionStore,
  cwd: string,
  note: (line: string) => void,
): Promise<SessionRecord> {
  const sessions = await nonEmptySessions(store);
  const here = sessions.find((session) => sessionWorkspace(session) === cwd);
  if (here) return here;
  const latest = sessions[0];
  if (!latest) throw new UsageError('no session to continue yet: start one with hermes chat');
  const where = sessionWorkspace(latest);
  note(
    `no session was started in ${cwd}; continuing the most recent one, ${latest.id}${where ? ` (started in ${where})` : ''}`,
  );
  return latest;
}
