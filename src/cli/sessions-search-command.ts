import type { Command } from 'commander';
import { UsageError } from '../core/errors.js';
import type { MessageSearchHit } from '../storage/session-store.js';
import { formatTime, printJson, styles, useColor } from './cli-output.js';

/**
 * `hermes sessions search TEXT` (docs/sessions.md "Search"): every stored message holding the
 * text — live or archived by compaction, in content, tool calls or reasoning — newest session
 * first, each with where to find it (`sessions show ID`, `--archived` for archived ones).
 */

interface SearchFlags {
  session?: string;
  limit: string;
  json?: boolean;
}

/** The `--json` shape of one hit. */
function hitDocument(hit: MessageSearchHit) {
  return {
    session_id: hit.sessionId,
    title: hit.title,
    message: hit.position,
    role: hit.role,
    archived: hit.archived !== null,
    compaction: hit.archived,
    field: hit.field,
    timestamp: hit.timestamp === null ? null : new Date(hit.timestamp).toISOString(),
    snippet: hit.snippet,
  };
}

/** Registers `hermes sessions search`. */
export function registerSessionsSearchCommand(sessions: Command): void {
  sessions
    .command('search <text>')
    .description(
      'Find messages holding TEXT (case-insensitive) in every session, live and archived by compaction: content, tool calls and reasoning.',
    )
    .option('--session <id>', "search only this session's messages")
    .option('-n, --limit <n>', 'how many messages to show', '20')
    .option('--json', 'print the hits as JSON')
    .addHelpText(
      'after',
      `
Each hit names its session and message number: hermes sessions show ID shows it (add --archived
for a message compaction archived).`,
    )
    .action(async (text: string, flags: SearchFlags) => {
      const limit = Number(flags.limit);
      if (!Number.isInteger(limit) || limit < 1) {
        throw new UsageError('--limit must be a positive whole number');
      }
      const { withCliContext } = await import('./cli-context.js');
      await withCliContext(
        async (context) => {
          const store = context.store();
          if (flags.session !== undefined && !(await store.getSession(flags.session))) {
            throw new UsageError(`no session "${flags.session}" (see hermes sessions list)`);
          }
          // One more than shown, to say when there are more.
          const hits = await store.searchMessages(text, {
            limit: limit + 1,
            ...(flags.session === undefined ? {} : { sessionId: flags.session }),
          });
          const shown = hits.slice(0, limit);
          if (flags.json) {
            printJson(shown.map(hitDocument));
            return;
          }
          if (!shown.length) {
            process.stdout.write(`no message holds "${text}"\n`);
            return;
          }
          const style = styles(useColor(process.stdout));
          for (const hit of shown) process.stdout.write(formatHit(hit, style));
          if (hits.length > limit) {
            process.stdout.write(
              style.dim(`more messages hold "${text}": raise --limit, or narrow with --session ID\n`),
            );
          }
          // Reads only: a config.yaml that does not load is a warning (cli-context.ts).
        },
        { readOnly: true },
      );
    });
}

/** Two lines: where the message is, then the snippet with the match in bold. */
function formatHit(hit: MessageSearchHit, style: ReturnType<typeof styles>): string {
  const where = [
    `message ${hit.position}`,
    hit.role,
    ...(hit.field === 'content' ? [] : [`in ${hit.field}`]),
    ...(hit.archived === null ? [] : [`archived by compaction ${hit.archived}`]),
    ...(hit.timestamp === null ? [] : [formatTime(hit.timestamp)]),
  ].join(', ');
  const title = hit.title ? `  "${hit.title}"` : '';
  const before = hit.snippet.slice(0, hit.matchStart);
  const match = hit.snippet.slice(hit.matchStart, hit.matchStart + hit.matchLength);
  const after = hit.snippet.slice(hit.matchStart + hit.matchLength);
  return `${style.cyan(hit.sessionId)}${title}  ${style.dim(where)}\n    ${before}${style.bold(match)}${after}\n`;
}
