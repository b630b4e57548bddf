import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import type { Command } from 'commander';
import { UsageError } from '../core/errors.js';
import type { Message } from '../core/message.js';
import { newSessionId } from '../core/ids.js';
import { parseBaseUrl } from '../runtime/runtime-route.js';
import type { CliContext } from './cli-context.js';
import { printJson } from './cli-output.js';
import { WORKSPACE_KEY } from './chat-session-select.js';
import type { SessionRecord, SessionStore } from '../storage/session-store.js';
import type { ImportedSession, ImportSource } from './sessions-import-records.js';

/** Flags of `hermes sessions import`. */
interface ImportFlags {
  from?: string;
  baseUrl?: string;
  model?: string;
  dryRun?: boolean;
  json?: boolean;
}

/** Registers `hermes sessions import --from claude|codex PATH`. */
export function registerSessionsImportCommand(sessions: Command): void {
  sessions
    .command('import <path>')
    .description(
      'Import a Claude Code transcript or a Codex rollout as a session, keeping signed thinking and encrypted reasoning byte for byte.',
    )
    .requiredOption('--from <tool>', 'the tool that wrote the file: claude (Claude Code) or codex (Codex CLI)')
    .option(
      '--base-url <url>',
      'the endpoint the session ran on, when not the default (claude: https://api.anthropic.com; codex: the ChatGPT Codex backend, or https://api.openai.com/v1 for an API-key session)',
    )
    .option('--model <id>', 'codex: the model of turns before the rollout names one (older rollouts)')
    .option('--dry-run', 'read and check the whole file, print what would be imported, store nothing')
    .option(
      '--json',
      'print {"session_id", "title", "workspace", "provider", "model", "messages", "kept", "skipped", …}',
    )
    .addHelpText(
      'after',
      `
Files:
  claude  ~/.claude/projects/<project>/<session>.jsonl
  codex   ~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl

Kept as they were: every user and assistant turn, tool calls and results, Anthropic thinking
blocks with their signatures and redacted_thinking data, Codex reasoning items with their
encrypted_content and summaries, each stamped with the issuer that minted it, and the directory
the session worked in. Resumed on the same issuer (hermes chat --resume ID, run in that
directory) the reasoning goes back exactly; another route gets the readable text only.
Not imported: sub-agent (sidechain) turns, the tools' own bookkeeping records, and their system
prompts, which the files do not hold.

A record that cannot be read stops the import with FILE:LINE and what is wrong (exit 2); nothing
is stored until the whole file has been read. Importing the same transcript again stores nothing
and names the session it became; one that grew since (the session went on in the tool) is
imported as a new session, and the earlier import is named.

Examples:
  hermes sessions import --from claude ~/.claude/projects/-home-me-app/7c9e6679-….jsonl
  hermes sessions import --from codex ~/.codex/sessions/2026/11/27/rollout-….jsonl --dry-run`,
    )
    .action(async (path: string, flags: ImportFlags) => {
      const imported = await readTranscript(path, flags);
      if (flags.dryRun) {
        report(imported, null, flags);
        return;
      }
      await (
        await import('./cli-context.js')
      ).withCliContext(async (context) => {
        const earlier = await earlierImports(context, imported.source);
        // The same transcript, unchanged since it was imported: the session it became, not a copy.
        const same = await importedUnchanged(context.store(), earlier, imported.messages);
        if (same) {
          report(imported, same.id, flags, { alreadyImported: true, earlier: [] });
          return;
        }
        const id = await storeImported(context, imported);
        report(imported, id, flags, { alreadyImported: false, earlier: earlier.map((session) => session.id) });
      });
    });
}

/** Parses the whole file first: a bad record stops here, before anything is stored. */
async function readTranscript(path: string, flags: ImportFlags): Promise<ImportedSession> {
  if (flags.from !== 'claude' && flags.from !== 'codex') {
    throw new UsageError(`--from must be claude or codex, not "${flags.from ?? ''}"`);
  }
  const baseUrl = flags.baseUrl === undefined ? undefined : parseBaseUrl(flags.baseUrl, '--base-url');
  const file = resolve(path);
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new UsageError(`cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
  const { jsonLines } = await import('./sessions-import-records.js');
  const lines = jsonLines(text, path);
  // Errors name the path as given; the session records the absolute one.
  const imported =
    flags.from === 'claude'
      ? (await import('./sessions-import-claude.js')).importClaudeTranscript(lines, { file: path, baseUrl })
      : (await import('./sessions-import-codex.js')).importCodexRollout(lines, {
          file: path,
          baseUrl,
          model: flags.model,
        });
  return { ...imported, source: { ...imported.source, file } };
}

/**
 * Stores the session and its messages; a failure after the session was created deletes it, so
 * nothing half-imported remains.
 */
async function storeImported(context: CliContext, imported: ImportedSession): Promise<string> {
  const store = context.store();
  const id = newSessionId();
  await store.createSession({
    id,
    title: imported.title,
    provider: imported.provider,
    model: imported.model,
    baseUrl: imported.baseUrl,
    api: imported.api,
    modelConfig: {
      ...(imported.workspace ? { [WORKSPACE_KEY]: imported.workspace } : {}),
      imported_from: { ...imported.source },
    },
  });
  try {
    await store.appendMessages(id, imported.messages);
  } catch (error) {
    await store.deleteSession(id).catch(() => undefined);
    throw error;
  }
  return id;
}

/**
 * Sessions imported before from the same source: the same tool's session id, or the same file
 * when the transcript names none. Newest first.
 */
async function earlierImports(context: CliContext, source: ImportSource): Promise<SessionRecord[]> {
  const sessions = await context.store().listSessions();
  return sessions.filter((session) => {
    const from = session.modelConfig['imported_from'];
    if (typeof from !== 'object' || from === null || Array.isArray(from)) return false;
    if (from['tool'] !== source.tool) return false;
    return source.session_id !== null ? from['session_id'] === source.session_id : from['file'] === source.file;
  });
}

/**
 * The earlier import that stores exactly these messages (every key and value, key order aside),
 * or undefined: a transcript edited since, even with as many messages, is imported again.
 */
async function importedUnchanged(
  store: SessionStore,
  earlier: readonly SessionRecord[],
  messages: readonly Message[],
): Promise<SessionRecord | undefined> {
  const wanted: unknown = JSON.parse(JSON.stringify(messages));
  for (const session of earlier) {
    if (session.messageCount !== messages.length) continue;
    const stored = await store.listMessages(session.id, { includeUndone: true });
    if (isDeepStrictEqual(JSON.parse(JSON.stringify(stored)), wanted)) return session;
  }
  return undefined;
}

/** Whether the transcript was stored already, and the earlier imports of an older state of it. */
interface ImportOutcome {
  alreadyImported: boolean;
  earlier: string[];
}

function report(
  imported: ImportedSession,
  sessionId: string | null,
  flags: ImportFlags,
  outcome: ImportOutcome = { alreadyImported: false, earlier: [] },
): void {
  if (flags.json) {
    printJson({
      session_id: sessionId,
      dry_run: sessionId === null,
      already_imported: outcome.alreadyImported,
      earlier_imports: outcome.earlier,
      source: imported.source,
      title: imported.title,
      workspace: imported.workspace,
      provider: imported.provider,
      model: imported.model,
      api: imported.api,
      base_url: imported.baseUrl,
      messages: imported.messages.length,
      kept: imported.kept,
      skipped: imported.skipped,
    });
    return;
  }
  const kept = [
    [imported.kept.signed_thinking, 'signed thinking block'],
    [imported.kept.redacted_thinking, 'redacted thinking block'],
    [imported.kept.encrypted_reasoning, 'encrypted reasoning item'],
  ]
    .filter(([count]) => Number(count) > 0)
    .map(([count, noun]) => `${count} ${noun}${count === 1 ? '' : 's'}`);
  const what = `${imported.messages.length} messages${kept.length ? `; kept byte for byte: ${kept.join(', ')}` : ''}`;
  const head =
    sessionId === null
      ? `would import ${imported.source.file}`
      : outcome.alreadyImported
        ? `${imported.source.file} was imported already, unchanged since, as ${sessionId}; nothing stored`
        : `imported ${imported.source.file} as ${sessionId}`;
  process.stdout.write(`${head} (${what})\n`);
  if (outcome.earlier.length) {
    process.stdout.write(`  an earlier state of this transcript was imported as ${outcome.earlier.join(', ')}\n`);
  }
  process.stdout.write(`  ${imported.provider} ${imported.model}, workspace ${imported.workspace ?? '(unknown)'}\n`);
  if (sessionId !== null) {
    const where = imported.workspace ? `cd ${imported.workspace} && ` : '';
    process.stdout.write(`  resume with: ${where}hermes chat --resume ${sessionId}\n`);
  }
}
