import type { Command } from 'commander';
import { UsageError } from '../core/errors.js';
import type { SessionRecord, SessionStore } from '../storage/session-store.js';
import { READ_ONLY, withCliContext } from './cli-context-lazy.js';
import { formatTime, printJson, useColor } from './cli-output.js';
import { describeSession } from './sessions-show.js';
import { sessionDocument, sessionSummaryDocument } from '../storage/session-documents.js';
import type { RouteFlags } from '../runtime/runtime-route.js';
import type { CompactionSettings } from '../runtime/compaction-plan.js';
import { registerSessionsMigrateCommand } from './sessions-migrate-command.js';
import { registerSessionsImportCommand } from './sessions-import-command.js';
import { registerSessionsSearchCommand } from './sessions-search-command.js';
import { nextBranchTitle } from '../storage/session-branch-title.js';
import { listUserSessions } from '../storage/session-probe.js';

/** Registers `hermes sessions list|show|search|export|delete|rename|branch|compress|migrate|import`. */
export function registerSessionsCommand(program: Command): void {
  const sessions = program
    .command('sessions')
    .description(
      'List, inspect, search, export, import, branch, compact and manage stored sessions ($HERMES_HOME/state.db, or the storage.url / HERMES_DATABASE_URL store).',
    );

  sessions
    .command('list')
    .description('List sessions, newest first (the sessions of hermes doctor --probe continuity are left out).')
    .option('--json', 'print JSON')
    .option('-n, --limit <n>', 'how many sessions to show', '50')
    .option('--probes', 'include the sessions of hermes doctor --probe continuity')
    .action(async (flags: { json?: boolean; limit: string; probes?: boolean }) => {
      const limit = Number.parseInt(flags.limit, 10);
      if (!Number.isInteger(limit) || limit < 1) throw new UsageError('--limit must be a positive whole number');
      await withCliContext(async (context) => {
        const store = context.store();
        const list = flags.probes ? await store.listSessions({ limit }) : await listUserSessions(store, limit);
        if (flags.json) {
          printJson(list.map(sessionSummaryDocument));
          return;
        }
        if (!list.length) {
          process.stdout.write('no sessions yet (start one with: hermes chat)\n');
          return;
        }
        for (const session of list) {
          process.stdout.write(
            `${session.id}  ${formatTime(session.updatedAt)}  ${String(session.messageCount).padStart(4)} msgs  ` +
              `${session.provider ?? '-'}/${session.model ?? '-'}  ${session.title ?? ''}${compactedNote(session)}\n`,
          );
        }
      }, READ_ONLY);
    });

  sessions
    .command('show <id>')
    .description('Show a session: route, turns, carriers kept per turn, lineage, and its messages.')
    .option('--json', 'print model_config and every stored message in the canonical message shape (docs/sessions.md)')
    .option('--full', "print every line of each turn's reasoning and the whole system prompt")
    .option('--archived', 'also list the messages compaction archived (marked; --json: "_archived": N)')
    .action(async (id: string, flags: { json?: boolean; full?: boolean; archived?: boolean }) => {
      await withCliContext(async (context) => {
        const store = context.store();
        await requireSession(store, id);
        if (flags.json) printJson(await sessionDocument(store, id, { includeArchived: flags.archived === true }));
        else {
          const options = {
            full: Boolean(flags.full),
            color: useColor(process.stdout),
            archived: flags.archived === true,
          };
          process.stdout.write(await describeSession(store, id, options));
        }
      }, READ_ONLY);
    });

  sessions
    .command('export <id>')
    .description(
      'Print the session as JSON lines: a header line {"hermes_session": {...model_config}} then every stored message, one per line (archived ones marked "_archived": N).',
    )
    .action(async (id: string) => {
      await withCliContext(async (context) => {
        const store = context.store();
        await requireSession(store, id);
        // An export is the whole session: what compaction archived comes along, marked.
        const json = await sessionDocument(store, id, { includeArchived: true });
        const { messages, ...header } = json;
        process.stdout.write(`${JSON.stringify({ hermes_session: header })}\n`);
        for (const message of messages) process.stdout.write(`${JSON.stringify(message)}\n`);
      }, READ_ONLY);
    });

  sessions
    .command('delete <id>')
    .description('Delete a session and its messages (children keep their copies).')
    .action(async (id: string) => {
      await withCliContext(async (context) => {
        if (!(await context.store().deleteSession(id)))
          throw new UsageError(`no session "${id}" (see hermes sessions list)`);
        process.stdout.write(`deleted ${id}\n`);
      });
    });

  sessions
    .command('rename <id> <title>')
    .description('Set a session title.')
    .action(async (id: string, title: string) => {
      await withCliContext(async (context) => {
        await requireSession(context.store(), id);
        await context.store().updateSession(id, { title });
        process.stdout.write(`renamed ${id} to "${title}"\n`);
      });
    });

  sessions
    .command('branch <id>')
    .description('Copy a session (every message with all reasoning fields) into a new child session.')
    .option('--title <title>', 'title of the new session')
    .option('--json', 'print {"session_id", "title", "parent_session_id"}')
    .action(async (id: string, flags: { title?: string; json?: boolean }) => {
      await withCliContext(async (context) => {
        await requireSession(context.store(), id);
        const store = context.store();
        const child = await store.forkSession(id, { title: flags.title ?? (await nextBranchTitle(store, id)) });
        if (flags.json) printJson({ session_id: child.id, title: child.title, parent_session_id: id });
        else process.stdout.write(`Branched to ${child.title ?? child.id}: ${child.id}\n`);
      });
    });

  sessions
    .command('compress <id>')
    .description(
      "Compact a session now: summarise its middle with the session's own route; by default in place (same id, the summarised turns archived), or into a child session with --child.",
    )
    .option('--provider <id>', 'override the provider used for the summary')
    .option('--model <id>', 'override the model')
    .option('--base-url <url>', 'override the base URL')
    .option('--api-key <key>', 'API key (default: the provider environment variable)')
    .option('--tail <mode>', 'how the kept tail is sized: lean (tokens) or turns (default: config, lean)')
    .option('--keep-turns <n>', 'recent user turns kept intact; implies --tail turns (default: config, 20)')
    .option(
      '--child',
      'write the result to a new child session and leave this one as it is (compaction.in_place: false)',
    )
    .option('--json', 'print what was done as JSON')
    .addHelpText(
      'after',
      `
Prints the id of the session that continues (the same id when compacted in place). What was
summarised and what the tail kept: hermes sessions show ID; the archived turns: hermes sessions
show ID --archived, or hermes sessions search TEXT.`,
    )
    .action(async (id: string, flags: CompressFlags) => {
      await withCliContext(async (context) => {
        const store = context.store();
        const session = await store.getSession(id);
        if (!session) throw new UsageError(`no session "${id}" (see hermes sessions list)`);
        const compaction = compressSettings(context.config.compaction, flags);
        const [{ openRoute }, { compressSession }] = await Promise.all([
          import('./cli-route.js'),
          import('../runtime/compaction-run.js'),
        ]);
        const opened = await openRoute(flags, context, session);
        try {
          const outcome = await compressSession(
            {
              store,
              sessionId: id,
              route: opened.route,
              apiKey: opened.apiKey,
              connectTo: opened.connectTo,
              timeouts: context.config.timeouts,
              reasoning: { enabled: false },
              routeOverrides: context.config.routes,
              echoOptIn: context.config.reasoningEcho,
              compaction,
              leaseOwner: 'hermes sessions compress',
            },
            (text) => {
              if (!flags.json) process.stderr.write(`${text}\n`);
            },
          );
          if (flags.json) {
            printJson({
              session_id: outcome.sessionId,
              compacted: outcome.compacted,
              in_place: outcome.compacted && outcome.childSessionId === undefined,
              message: outcome.message,
              record: outcome.record ?? null,
            });
          } else if (outcome.compacted) process.stdout.write(`${outcome.sessionId}\n`);
        } finally {
          await opened.close();
        }
      });
    });

  registerSessionsSearchCommand(sessions);
  registerSessionsMigrateCommand(sessions);
  registerSessionsImportCommand(sessions);
}

/** `  (compacted 2×)` for a session compacted in place; empty otherwise. */
function compactedNote(session: SessionRecord): string {
  const records = session.modelConfig['compactions'];
  return Array.isArray(records) && records.length ? `  (compacted ${records.length}×)` : '';
}

/** Flags of `sessions compress`. */
type CompressFlags = RouteFlags & { tail?: string; keepTurns?: string; child?: boolean; json?: boolean };

/** The compaction settings of `sessions compress`: the config's, with the flags applied. */
function compressSettings(config: CompactionSettings, flags: CompressFlags): CompactionSettings {
  const settings: CompactionSettings = { ...config };
  if (flags.tail !== undefined) {
    if (flags.tail !== 'lean' && flags.tail !== 'turns') throw new UsageError('--tail must be lean or turns');
    settings.tail = flags.tail;
  }
  if (flags.keepTurns !== undefined) {
    const keepTurns = Number(flags.keepTurns);
    if (!Number.isInteger(keepTurns) || keepTurns < 1)
      throw new UsageError('--keep-turns must be a positive whole number');
    if (flags.tail === 'lean') throw new UsageError('--keep-turns sizes a turns tail: drop it, or use --tail turns');
    settings.keepTurns = keepTurns;
    settings.tail = 'turns';
  }
  if (flags.child) settings.inPlace = false;
  return settings;
}

/** Throws a UsageError when the session does not exist. */
export async function requireSession(store: SessionStore, id: string): Promise<void> {
  if (!(await store.getSession(id))) throw new UsageError(`no session "${id}" (see hermes sessions list)`);
}
