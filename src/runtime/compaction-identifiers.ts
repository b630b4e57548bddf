import type { Message } from '../core/message.js';

/**
 * The identifier index a compaction summary carries (SPEC §26.6): whatever the summariser writes,
 * the stored summary lists, verbatim, the identifiers of the summarised turns — file paths,
 * commit hashes, issue and pull-request numbers, URLs and error lines — taken mechanically from
 * what the turns said and did (message text, tool-call arguments, tool results; never reasoning).
 * Deduplicated and bounded per kind (what the user wrote first, then the newest, when the bound
 * cuts), so the summary stays small.
 */

/** Kinds of identifiers, in the order the index lists them. */
export const IDENTIFIER_KINDS = ['paths', 'commits', 'issues', 'urls', 'errors'] as const;
/** One kind of identifier. */
export type IdentifierKind = (typeof IDENTIFIER_KINDS)[number];

/** The identifiers found, per kind, each in the order it first appeared. */
export type IdentifierIndex = Record<IdentifierKind, string[]>;

/** Most identifiers kept per kind. */
export const IDENTIFIER_LIMITS: Readonly<Record<IdentifierKind, number>> = {
  paths: 80,
  commits: 30,
  issues: 30,
  urls: 30,
  errors: 25,
};
/** An error line is cut at this many characters. */
const ERROR_LINE_CHARACTERS = 200;

const URL = /\bhttps?:\/\/[^\s<>"'`)\]}]+/g;
const WINDOWS_PATH = /\b[A-Za-z]:\\[^\s"'<>|*?]+/g;
const PATH = /(?<![\w@.:/\\-])(?:~|\.{1,2})?\/?[\w.@+-]+(?:\/[\w.@+-]+)+\/?/g;
const FILE_NAME =
  /(?<![\w/.-])[\w-]+\.(?:ts|tsx|js|jsx|mjs|cjs|py|rs|go|java|kt|rb|php|c|h|cc|cpp|hpp|cs|swift|md|json|jsonl|yaml|yml|toml|ini|cfg|sh|sql|html|css|scss|txt|log|lock|xml|proto|vue|svelte|env)\b/g;
const COMMIT = /(?<![\w-])[0-9a-f]{7,40}(?![\w-])/g;
const ISSUE = /(?<![\w&#])(?:[\w.-]+\/[\w.-]+)?#\d{1,7}\b|\b(?:issue|PR|pull request|bug|ticket)\s+#?\d{1,7}\b/gi;
const ERROR_LINE =
  /(?:\b[A-Z][A-Za-z0-9]*(?:Error|Exception)\b|\bE[A-Z0-9]{3,}:|\berror(?:\[[\w-]+\]|\s+TS\d+)?:|\bfatal:|\bpanic:|\bFAILED\b|\bTraceback \(most recent call last\))/;

/** Text a message said or did (content, tool-call arguments, tool results); never its reasoning. */
export function visibleTextOf(message: Message): string {
  const parts: string[] = [];
  if (typeof message.content === 'string') parts.push(message.content);
  else if (Array.isArray(message.content)) {
    for (const part of message.content) if (typeof part.text === 'string') parts.push(part.text);
  }
  if (message.role === 'assistant') {
    for (const call of message.tool_calls ?? []) parts.push(call.function.arguments);
  }
  return parts.join('\n');
}

/** Removes trailing punctuation a sentence put after an identifier. */
function trimTrailing(value: string): string {
  return value.replace(/[.,;:!?'"]+$/, '');
}

/** The identifiers of one text, per kind, in order of appearance. */
export function identifiersOf(text: string): IdentifierIndex {
  const found: IdentifierIndex = { paths: [], commits: [], issues: [], urls: [], errors: [] };
  for (const line of text.split('\n')) {
    const error = ERROR_LINE.exec(line);
    if (error) found.errors.push(line.slice(error.index).trim().slice(0, ERROR_LINE_CHARACTERS));
  }
  // URLs first, then paths: each is blanked out before the next pattern, so a URL's path or a
  // path's hex segment is not listed twice.
  let rest = text.replace(URL, (url) => {
    found.urls.push(trimTrailing(url));
    return ' ';
  });
  rest = rest.replace(WINDOWS_PATH, (path) => {
    found.paths.push(trimTrailing(path));
    return ' ';
  });
  rest = rest.replace(PATH, (path) => {
    const trimmed = trimTrailing(path);
    if (isLikelyPath(trimmed)) {
      found.paths.push(trimmed);
      return ' ';
    }
    return path;
  });
  rest = rest.replace(FILE_NAME, (name) => {
    found.paths.push(name);
    return ' ';
  });
  for (const match of rest.matchAll(ISSUE)) found.issues.push(match[0]);
  for (const match of rest.matchAll(COMMIT)) {
    if (/[a-f]/.test(match[0]) && /\d/.test(match[0])) found.commits.push(match[0]);
  }
  return found;
}

/**
 * A slashed token is a path when it is rooted (`/`, `~`, `./`, `../`), has three or more segments,
 * or ends in a file extension; and holds a letter. `and/or` and `1/2` are not.
 */
function isLikelyPath(token: string): boolean {
  if (!/[A-Za-z]/.test(token)) return false;
  if (/^(?:\/|~|\.{1,2}\/)/.test(token)) return true;
  if (token.split('/').filter(Boolean).length >= 3) return true;
  return /\.[A-Za-z][\w-]*$/.test(token);
}

/**
 * The identifier index of `messages`: what the user wrote first (it names what matters), then
 * everything else, newest messages first while filling each kind's limit; deduplicated, each
 * kind listed in the order the session holds the occurrences kept.
 */
export function identifierIndex(messages: readonly Message[]): IdentifierIndex {
  const kept: Record<IdentifierKind, Set<string>> = {
    paths: new Set(),
    commits: new Set(),
    issues: new Set(),
    urls: new Set(),
    errors: new Set(),
  };
  const order = new Map<string, number>();
  const take = (index: number) => {
    const message = messages[index];
    if (!message) return;
    const found = identifiersOf(visibleTextOf(message));
    for (const kind of IDENTIFIER_KINDS) {
      // Within a message, later identifiers are newer: take them from the end.
      for (const [position, value] of [...found[kind].entries()].reverse()) {
        if (kept[kind].has(value) || kept[kind].size >= IDENTIFIER_LIMITS[kind]) continue;
        kept[kind].add(value);
        order.set(`${kind}\0${value}`, index * 1_000_000 + position);
      }
    }
  };
  for (let index = messages.length - 1; index >= 0; index -= 1) if (messages[index]?.role === 'user') take(index);
  for (let index = messages.length - 1; index >= 0; index -= 1) if (messages[index]?.role !== 'user') take(index);
  const index = {} as IdentifierIndex;
  for (const kind of IDENTIFIER_KINDS) {
    const at = (value: string) => order.get(`${kind}\0${value}`) ?? 0;
    index[kind] = [...kept[kind]].sort((left, right) => at(left) - at(right));
  }
  return index;
}

/** How many identifiers an index holds. */
export function identifierCount(index: IdentifierIndex): number {
  return IDENTIFIER_KINDS.reduce((total, kind) => total + index[kind].length, 0);
}

const KIND_LABELS: Readonly<Record<IdentifierKind, string>> = {
  paths: 'files and paths',
  commits: 'commits',
  issues: 'issues and pull requests',
  urls: 'URLs',
  errors: 'errors',
};

/** Heading of the identifier section of a stored summary. */
export const IDENTIFIER_HEADING = 'Identifiers from the summarised turns, verbatim:';

/** The section appended to a stored summary; empty when nothing was found. */
export function renderIdentifierIndex(index: IdentifierIndex): string {
  const lines: string[] = [];
  for (const kind of IDENTIFIER_KINDS) {
    const values = index[kind];
    if (values.length === 0) continue;
    if (kind === 'errors') {
      lines.push(`- ${KIND_LABELS[kind]}:`, ...values.map((value) => `  - ${value}`));
    } else lines.push(`- ${KIND_LABELS[kind]}: ${values.join(' · ')}`);
  }
  return lines.length ? `${IDENTIFIER_HEADING}\n${lines.join('\n')}` : '';
}
