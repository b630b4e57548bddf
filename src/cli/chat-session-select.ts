import { statSync } from 'node:fs';
import { UsageError } from '../core/errors.js';
import { isJsonObject } from '../core/json.js';
import { listUserSessions } from '../storage/session-probe.js';
import type { SessionRecord, SessionStore } from '../storage/session-store.js';
import type { CliContext } from './cli-context.js';

/**
 * Which stored session `hermes chat --resume VALUE`, `-c` and `/resume` mean, and where it runs.
 * Sessions with no message are never chosen by `-c` or `latest` (nothing to continue). A chat
 * session records the directory it started in under the model-config key {@link WORKSPACE_KEY};
 * `-c` continues only a session started in the current directory, and a resumed session runs its
 * tools in its own directory (its stored system prompt names that one).
 */

/** Session model-config key holding the working directory a chat session started in. */
export const WORKSPACE_KEY = 'workspace';

/** How many of the newest sessions `-c`, `latest` and prefixes look through. */
const SCAN_LIMIT = 1000;

/** How many compactions in a row a resume follows (a lineage is never this long; the bound stops a cycle). */
const MAX_COMPACTION_HOPS = 100;

/** Where one-line notices about the chosen session go (`hermes: …` on stderr). */
export type SessionNote = (line: string) => void;

/** The session's starting directory, when it recorded one. */
export function sessionWorkspace(session: SessionRecord): string | null {
  const value = session.modelConfig[WORKSPACE_KEY];
  return typeof value === 'string' ? value : null;
}

async function nonEmptySessions(store: SessionStore): Promise<SessionRecord[]> {
  // The continuity probe's sessions are not the user's (storage/session-probe.ts).
  return (await listUserSessions(store, SCAN_LIMIT)).filter((session) => session.messageCount > 0);
}

function ambiguous(value: string, matches: readonly SessionRecord[]): UsageError {
  const shown = matches.slice(0, 10).map((session) => `  ${session.id}  "${session.title ?? ''}"`);
  const more = matches.length > 10 ? `\n  … and ${matches.length - 10} more` : '';
  return new UsageError(`"${value}" matches ${matches.length} sessions; resume one by id:\n${shown.join('\n')}${more}`);
}

/**
 * `--resume VALUE`: a session id, a unique id prefix, `latest` (the newest non-empty session), or
 * a title — exact, else a unique prefix (case-insensitive). Unknown or ambiguous values are a
 * usage error naming the candidates. A session that was compacted continues in its newest
 * compaction child ({@link followCompaction}).
 */
export async function resumeTarget(
  store: SessionStore,
  value: string,
  note: SessionNote = () => undefined,
): Promise<SessionRecord> {
  return followCompaction(store, await matchSession(store, value), note);
}

async function matchSession(store: SessionStore, value: string): Promise<SessionRecord> {
  const byId = await store.getSession(value);
  if (byId) return byId;
  if (value === 'latest') {
    const latest = (await nonEmptySessions(store))[0];
    if (!latest) throw new UsageError('no session to resume yet: start one with hermes chat');
    return latest;
  }
  const sessions = await store.listSessions({ limit: SCAN_LIMIT });
  const titled = sessions.filter((session) => session.title !== null);
  const exact = titled.filter((session) => session.title === value);
  if (exact.length === 1) return exact[0] as SessionRecord;
  if (exact.length > 1) throw ambiguous(value, exact);
  // Ids are long: the first characters, as `sessions list` shows them, are enough when unique.
  const byPrefix = sessions.filter((session) => session.id.startsWith(value.toLowerCase()));
  if (byPrefix.length === 1) return byPrefix[0] as SessionRecord;
  if (byPrefix.length > 1) throw ambiguous(value, byPrefix);
  const wanted = value.toLowerCase();
  const matches = titled.filter((session) => (session.title ?? '').toLowerCase().startsWith(wanted));
  if (matches.length === 1) return matches[0] as SessionRecord;
  if (matches.length === 0) throw new UsageError(`no session "${value}" (see hermes sessions list)`);
  throw ambiguous(value, matches);
}

/**
 * A compacted session lives on in the child compaction wrote (SPEC §16): resuming the parent
 * continues the newest compaction child (and its own, when it was compacted again), so the long
 * history is not compacted a second time. `note` says so in one line.
 */
export async function followCompaction(
  store: SessionStore,
  session: SessionRecord,
  note: SessionNote,
): Promise<SessionRecord> {
  let current = session;
  for (let hop = 0; hop < MAX_COMPACTION_HOPS; hop += 1) {
    const children = await store.childSessions(current.id);
    const from = current.id;
    const compacted = children
      .filter((child) => {
        const entry = child.modelConfig['compaction'];
        return isJsonObject(entry) && entry['source_session_id'] === from;
      })
      .sort((left, right) => right.createdAt - left.createdAt)[0];
    if (!compacted) break;
    note(
      `${from} was compacted into ${compacted.id}; continuing there (the full history: hermes sessions show ${from})`,
    );
    current = compacted;
  }
  return current;
}

/**
 * `-c`: the newest non-empty session started in `cwd` (its compaction child when it was
 * compacted). No session started here is a usage error that says how to resume another one.
 */
export async function continueTarget(
  store: SessionStore,
  cwd: string,
  note: SessionNote = () => undefined,
): Promise<SessionRecord> {
  const sessions = await nonEmptySessions(store);
  const here = sessions.find((session) => sessionWorkspace(session) === cwd);
  if (!here) {
    throw new UsageError(
      `no session was started in ${cwd}: start one with hermes chat, or resume another with hermes chat --resume ID (or latest)`,
    );
  }
  return followCompaction(store, here, note);
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/**
 * Where a chat runs its tools: the directory a resumed session started in (its stored system
 * prompt names it, and its earlier tool calls ran there), announced when that is not `cwd`; `cwd`
 * for a new session, a session that recorded none, or one whose directory no longer exists (said).
 */
export function chatWorkspace(session: SessionRecord | null, cwd: string, note: SessionNote): string {
  const started = session ? sessionWorkspace(session) : null;
  if (!session || started === null || started === cwd) return cwd;
  if (!isDirectory(started)) {
    note(`session ${session.id} started in ${started}, which no longer exists; tools run in ${cwd}`);
    return cwd;
  }
  note(`session ${session.id} started in ${started}: tools run there (you are in ${cwd})`);
  return started;
}

/** The system prompt a new chat session stores (config `system_prompt` / `instructions`, the workspace's context files). */
export async function newSessionSystemPrompt(context: CliContext, workspace: string): Promise<string> {
  const { defaultSessionSystemPrompt } = await import('../runtime/system-prompt-session.js');
  return defaultSessionSystemPrompt(context.config, workspace);
}
