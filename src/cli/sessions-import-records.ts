import type { JsonObject } from '../core/json.js';
import { isJsonObject } from '../core/json.js';
import { UsageError } from '../core/errors.js';
import type { Message } from '../core/message.js';
import type { WireApi } from '../core/origin.js';

/**
 * What the transcript importers share (`hermes sessions import`, docs/sessions.md): JSON lines with
 * their line numbers, the one-line error that names the first bad record, and the session an
 * importer produces. Importers are pure: lines in, a session or an error out; nothing is stored
 * until a whole file has been read.
 */

/** One record of a JSON-lines file and its 1-based line number. */
export interface JsonLine {
  line: number;
  record: JsonObject;
}

/** A record the importer cannot use: `FILE:LINE: what is wrong` (exit 2, nothing stored). */
export class ImportRecordError extends UsageError {
  override readonly name = 'ImportRecordError';
}

/** Throws the error naming `file:line`. */
export function badRecord(file: string, line: number, what: string): never {
  throw new ImportRecordError(`${file}:${line}: ${what}`);
}

/** The records of a JSON-lines text (blank lines skipped); the first line that is not a JSON object fails. */
export function jsonLines(text: string, file: string): JsonLine[] {
  const records: JsonLine[] = [];
  text.split('\n').forEach((raw, index) => {
    const source = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (source.trim() === '') return;
    let parsed: unknown;
    try {
      parsed = JSON.parse(source);
    } catch (error) {
      badRecord(file, index + 1, `not valid JSON (${(error as Error).message})`);
    }
    if (!isJsonObject(parsed)) badRecord(file, index + 1, 'not a JSON object');
    records.push({ line: index + 1, record: parsed });
  });
  if (records.length === 0) throw new ImportRecordError(`${file}: no records (the file is empty)`);
  return records;
}

/** Epoch milliseconds of an ISO timestamp, or undefined when absent or unreadable. */
export function epochOf(value: unknown): number | undefined {
  if (typeof value !== 'string') return undefined;
  const time = Date.parse(value);
  return Number.isFinite(time) ? time : undefined;
}

/** A session title from the first line of a text (60 characters at most). */
export function titleOf(text: string): string | undefined {
  const line = text.trim().split('\n')[0]?.trim() ?? '';
  if (line === '') return undefined;
  return line.length > 60 ? `${line.slice(0, 57)}...` : line;
}

/** Where the imported session came from, as `model_config.imported_from` keeps it. */
export interface ImportSource {
  /** `claude-code` or `codex`. */
  tool: 'claude-code' | 'codex';
  /** The tool's own session id. */
  session_id: string | null;
  /** The file imported (absolute path). */
  file: string;
  /** The tool's version that wrote the file, when it says. */
  version: string | null;
}

/** What one importer read: the messages and the session fields to store them under. */
export interface ImportedSession {
  source: ImportSource;
  messages: Message[];
  title: string | null;
  /** The directory the session worked in (its `cwd`), stored as the session's workspace. */
  workspace: string | null;
  provider: string;
  model: string;
  api: WireApi;
  /** Null: the provider's default endpoint. */
  baseUrl: string | null;
  /** What was kept byte for byte. */
  kept: { signed_thinking: number; redacted_thinking: number; encrypted_reasoning: number };
  /** Records not imported, by kind (harness bookkeeping the model never saw, or shapes Hermes does not hold). */
  skipped: Record<string, number>;
}

/** Counts one skipped record of `kind`. */
export function countSkipped(skipped: Record<string, number>, kind: string): void {
  skipped[kind] = (skipped[kind] ?? 0) + 1;
}
