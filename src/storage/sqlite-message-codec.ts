import { UsageError } from '../core/errors.js';
import { stringifyJson } from './session-store-rules.js';
import type { JsonObject } from '../core/json.js';
import type { Message } from '../core/message.js';

/**
 * Row mapping for the `messages` table (the same in SQLite and PostgreSQL): a canonical message (SPEC §2) to column values and back,
 * losslessly. The store's product is that `listMessages` returns deep-equal what `appendMessage`
 * got, so the encoding rules are strict and documented here once:
 *
 * - Absent vs null. A SQL NULL in a value column means the key was ABSENT. A key whose value is
 *   JSON `null` (e.g. `content: null` on a tool-call turn, `reasoning: null`) is also stored as
 *   SQL NULL, and its name is listed in the `null_keys` column (a JSON array, itself NULL when no
 *   key is null). Text columns thereby keep plain strings that other SQLite readers can query,
 *   and `reasoning_content: ""` stays the empty string: SQLite keeps `''` distinct from NULL.
 * - Text columns hold the string itself; the timestamp column holds the number.
 * - `reasoning` equal to `reasoning_content` is stored once. SPEC §2.1 stores the extracted
 *   reasoning text in both keys on nearly every reasoning turn, so writing it twice doubled the
 *   file and the resume load. Then the `reasoning` column is NULL, `reasoning_from_content` is 1,
 *   and decoding reads `reasoning_content` for both keys.
 * - A `reasoning_details` entry whose `text` equals `reasoning_content` (OpenRouter-style turns
 *   carry the same reasoning three times) keeps its `text` key, in place, with "" on disk; its
 *   index is listed in `details_text_from_content`, and decoding puts `reasoning_content` back
 *   (the same string, so a loaded session holds it once in memory too). Key order is unchanged,
 *   so the entry replays byte for byte.
 * - JSON columns (`tool_calls`, `reasoning_details`, the native block lists, the codex item lists,
 *   `origin`) hold `JSON.stringify(value)` written ONCE and read back with one `JSON.parse`. A list
 *   is never pre-encoded and then encoded again, which is how the prior art ended up with
 *   double-encoded rows (SPEC §18, hermes-agent #82109 / #57240).
 * - The private key `_archived` (a compaction number, `session-archive.ts`) is the `archived`
 *   column, so stores filter archived rows in SQL; it is decoded as the message's last key.
 * - A value whose type does not fit its column (user content parts in `content`, a string where a
 *   list is expected, a string that is not well-formed UTF-16 or holds NUL and so would not
 *   survive UTF-8 text in SQLite or PostgreSQL) goes to `extra` with every other key, as JSON. `extra` holds unknown keys and
 *   private `_` keys too, so a message round-trips exactly, whatever it carries.
 */

/** What a mapped column accepts; anything else for that key is kept in `extra`. */
type ColumnKind = 'text' | 'number' | 'list' | 'object';

/** The mapped message keys, in the order a decoded message lists them. Column name = key. */
const MAPPED_COLUMNS: ReadonlyArray<readonly [key: string, kind: ColumnKind]> = [
  ['content', 'text'],
  ['tool_call_id', 'text'],
  ['tool_name', 'text'],
  ['tool_calls', 'list'],
  ['reasoning', 'text'],
  ['reasoning_content', 'text'],
  ['reasoning_details', 'list'],
  ['anthropic_content_blocks', 'list'],
  ['bedrock_content_blocks', 'list'],
  ['codex_reasoning_items', 'list'],
  ['codex_message_items', 'list'],
  ['finish_reason', 'text'],
  ['api_content', 'text'],
  ['origin', 'object'],
  ['timestamp', 'number'],
  ['platform_message_id', 'text'],
  ['effect_disposition', 'text'],
];

const MAPPED_KIND = new Map<string, ColumnKind>(MAPPED_COLUMNS);

/** Value columns of the `messages` table that a message is encoded into, in insert order. */
export const MESSAGE_VALUE_COLUMNS: readonly string[] = [
  'role',
  ...MAPPED_COLUMNS.map(([key]) => key),
  'reasoning_from_content',
  'null_keys',
  'extra',
  'details_text_from_content',
  'archived',
];

/** One encoded message: column values in {@link MESSAGE_VALUE_COLUMNS} order. */
export type EncodedMessage = Array<string | number | null>;

/** The SELECT list that {@link decodeMessageRow} reads, in {@link MESSAGE_VALUE_COLUMNS} order. */
export const MESSAGE_SELECT_COLUMNS: string = MESSAGE_VALUE_COLUMNS.join(', ');

const REASONING_FROM_CONTENT_INDEX = MAPPED_COLUMNS.length + 1;
const NULL_KEYS_INDEX = MAPPED_COLUMNS.length + 2;
const EXTRA_INDEX = MAPPED_COLUMNS.length + 3;
const DETAILS_FROM_CONTENT_INDEX = MAPPED_COLUMNS.length + 4;
const ARCHIVED_INDEX = MAPPED_COLUMNS.length + 5;
/** The private key held by the `archived` column (session-archive.ts): the compaction that archived the row. */
const ARCHIVED_KEY = '_archived';

/** True when `value` is a compaction number the `archived` column holds. */
function isCompactionNumber(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value > 0 && value <= 2_147_483_647;
}
const REASONING_DETAILS_INDEX = MAPPED_COLUMNS.findIndex(([key]) => key === 'reasoning_details') + 1;
// Row positions (role is 0) of the two reasoning text columns.
const REASONING_INDEX = MAPPED_COLUMNS.findIndex(([key]) => key === 'reasoning') + 1;
const REASONING_CONTENT_INDEX = MAPPED_COLUMNS.findIndex(([key]) => key === 'reasoning_content') + 1;

interface StringWithWellFormed {
  isWellFormed(): boolean;
}

/** True when `value` fits a column of `kind` without loss. */
function fitsColumn(kind: ColumnKind, value: unknown): boolean {
  switch (kind) {
    case 'text':
      // Text columns are UTF-8: a lone surrogate would come back as U+FFFD, and PostgreSQL text
      // cannot hold NUL at all. Such a string goes to `extra`, whose JSON escapes it (`\ud800`,
      // `\u0000`), so every store holds the same bytes. `isWellFormed` exists on Node 20's V8.
      return (
        typeof value === 'string' &&
        (value as unknown as StringWithWellFormed).isWellFormed() &&
        !value.includes('\u0000')
      );
    case 'number':
      return typeof value === 'number' && Number.isFinite(value);
    case 'list':
      return Array.isArray(value);
    case 'object':
      return typeof value === 'object' && value !== null && !Array.isArray(value);
  }
}

/**
 * Encodes one message into column values (see the file comment for the rules). Throws a
 * `UsageError` when the message has no string `role` or holds a value that is not JSON.
 */
export function encodeMessage(message: Message): EncodedMessage {
  const record = message as unknown as Record<string, unknown>;
  const role = record['role'];
  if (typeof role !== 'string') throw new UsageError('cannot store a message without a string "role"');
  const values: EncodedMessage = [role];
  const nullKeys: string[] = [];
  for (const [key, kind] of MAPPED_COLUMNS) {
    const value = record[key];
    if (value === null) nullKeys.push(key);
    if (value === undefined || value === null || !fitsColumn(kind, value)) {
      values.push(null);
    } else if (kind === 'text' || kind === 'number') {
      values.push(value as string | number);
    } else {
      values.push(stringifyJson(value, `message key "${key}"`));
    }
  }
  let extra: Record<string, unknown> | null = null;
  for (const key of Object.keys(record)) {
    if (key === 'role') continue;
    const value = record[key];
    if (value === undefined || value === null) {
      // Null on an unmapped key is kept by `extra` (JSON null); undefined is "absent" as in JSON.
      if (value === null && !MAPPED_KIND.has(key)) (extra ??= {})[key] = null;
      continue;
    }
    const kind = MAPPED_KIND.get(key);
    if (kind !== undefined && fitsColumn(kind, value)) continue;
    if (key === ARCHIVED_KEY && isCompactionNumber(value)) continue;
    extra ??= {};
    if (key === '__proto__')
      Object.defineProperty(extra, key, { value, enumerable: true, writable: true, configurable: true });
    else extra[key] = value;
  }
  let reasoningFromContent: number | null = null;
  const reasoning = values[REASONING_INDEX];
  if (typeof reasoning === 'string' && reasoning === values[REASONING_CONTENT_INDEX]) {
    values[REASONING_INDEX] = null;
    reasoningFromContent = 1;
  }
  values.push(reasoningFromContent);
  values.push(nullKeys.length === 0 ? null : JSON.stringify(nullKeys));
  values.push(extra === null ? null : stringifyJson(extra, 'message'));
  values.push(dedupeDetailsText(record, values));
  const archived = record[ARCHIVED_KEY];
  values.push(isCompactionNumber(archived) ? archived : null);
  return values;
}

/**
 * Rewrites the encoded `reasoning_details` with "" for every entry `text` equal to a non-empty
 * `reasoning_content`, returning the JSON list of those indexes (null when none).
 */
function dedupeDetailsText(record: Record<string, unknown>, values: EncodedMessage): string | null {
  const content = record['reasoning_content'];
  const details = record['reasoning_details'];
  if (typeof content !== 'string' || content === '' || !Array.isArray(details)) return null;
  if (values[REASONING_DETAILS_INDEX] === null) return null;
  const indexes: number[] = [];
  const stored = details.map((entry: unknown, index) => {
    if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) return entry;
    if ((entry as Record<string, unknown>)['text'] !== content) return entry;
    indexes.push(index);
    return { ...(entry as Record<string, unknown>), text: '' };
  });
  if (indexes.length === 0) return null;
  values[REASONING_DETAILS_INDEX] = stringifyJson(stored, 'message key "reasoning_details"');
  return JSON.stringify(indexes);
}

/** Sets `key` on `target` as an own data property (also when the key is `__proto__`). */
function defineKey(target: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__')
    Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  else target[key] = value;
}

/**
 * Decodes one row (read in raw array mode, {@link MESSAGE_VALUE_COLUMNS} order: the inverse of
 * {@link encodeMessage}) back into the message that was appended. Array rows spare building a
 * 22-key object per row, and JSON is parsed only for the columns that hold a value: both keep a
 * 10,000-message load fast. Throws when the row is damaged (a JSON column that does not parse
 * or holds the wrong shape, a value of the wrong type).
 */
export function decodeMessageRow(row: readonly unknown[]): Message {
  if (typeof row[0] !== 'string') throw new Error('its role is not text');
  const message: Record<string, unknown> = { role: row[0] };
  const nullKeysText = row[NULL_KEYS_INDEX];
  const nullKeys =
    typeof nullKeysText === 'string' ? (parseColumn(nullKeysText, 'null_keys', 'list') as string[]) : null;
  const extraText = row[EXTRA_INDEX];
  const extra = typeof extraText === 'string' ? (parseColumn(extraText, 'extra', 'object') as JsonObject) : null;
  const reasoningFromContent = row[REASONING_FROM_CONTENT_INDEX] === 1;
  for (let index = 0; index < MAPPED_COLUMNS.length; index += 1) {
    const [key, kind] = MAPPED_COLUMNS[index] as readonly [string, ColumnKind];
    const value = reasoningFromContent && index + 1 === REASONING_INDEX ? row[REASONING_CONTENT_INDEX] : row[index + 1];
    if (value !== null && value !== undefined) {
      message[key] = decodeColumn(value, key, kind);
    } else if (nullKeys !== null && nullKeys.includes(key)) {
      message[key] = null;
    } else if (extra !== null && Object.hasOwn(extra, key)) {
      message[key] = extra[key];
    }
  }
  if (extra !== null) {
    for (const key of Object.keys(extra)) {
      if (!MAPPED_KIND.has(key)) defineKey(message, key, extra[key]);
    }
  }
  const detailsFromContent = row[DETAILS_FROM_CONTENT_INDEX];
  if (typeof detailsFromContent === 'string' && Array.isArray(message['reasoning_details'])) {
    const details = message['reasoning_details'] as Record<string, unknown>[];
    for (const index of parseColumn(detailsFromContent, 'details_text_from_content', 'list') as number[]) {
      const entry = details[index];
      if (entry) entry['text'] = message['reasoning_content'];
    }
  }
  const archived = row[ARCHIVED_INDEX];
  if (archived !== null && archived !== undefined) message[ARCHIVED_KEY] = Number(archived);
  return message as unknown as Message;
}

/** One mapped column's value, checked against its kind. */
function decodeColumn(value: unknown, key: string, kind: ColumnKind): unknown {
  if (kind === 'text') {
    if (typeof value !== 'string') throw new Error(`column ${key} holds a ${typeof value}, not text`);
    return value;
  }
  if (kind === 'number') {
    if (typeof value !== 'number') throw new Error(`column ${key} holds a ${typeof value}, not a number`);
    return value;
  }
  if (typeof value !== 'string') throw new Error(`column ${key} holds a ${typeof value}, not JSON text`);
  return parseColumn(value, key, kind);
}

/** Parses a JSON column and checks it holds a list or an object as its kind says. */
function parseColumn(text: string, column: string, kind: 'list' | 'object'): unknown {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new Error(`column ${column} is not valid JSON (${(error as Error).message})`, { cause: error });
  }
  const fits =
    kind === 'list' ? Array.isArray(value) : typeof value === 'object' && value !== null && !Array.isArray(value);
  if (!fits) throw new Error(`column ${column} does not hold a JSON ${kind}`);
  return value;
}

/** What a store reports for a row it cannot decode. */
export interface UndecodableRow {
  seq: number;
  reason: string;
}

/**
 * Decodes rows read as {@link MESSAGE_SELECT_COLUMNS} followed by `seq`: a damaged row is left
 * out and reported, so the rest of the session still lists, shows and resumes.
 */
export function decodeMessageRows(
  rows: readonly (readonly unknown[])[],
  report: (row: UndecodableRow) => void,
): Message[] {
  const messages: Message[] = [];
  for (const row of rows) {
    try {
      messages.push(decodeMessageRow(row));
    } catch (error) {
      report({ seq: Number(row[MESSAGE_VALUE_COLUMNS.length]), reason: (error as Error).message });
    }
  }
  return messages;
}
