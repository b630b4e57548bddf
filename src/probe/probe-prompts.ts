import type { ToolDefinition } from '../core/tool-definition.js';

/**
 * The words of the hidden-number probe (SPEC §26.5) and how its answers are read. The model is
 * asked to write the number in its reasoning as `SECRET=NNN` and, asked for it later, to answer
 * `SECRET=NNN` or `SECRET=unknown`: one shape that a real model follows and a parser cannot
 * confuse with other numbers in an answer.
 */

/** The system prompt of every probe conversation. */
export const PROBE_SYSTEM_PROMPT =
  'You are taking part in a short continuity check run by Hermes. Follow each instruction exactly and keep answers short.';

/**
 * Two warm-up turns before the pick, so that compaction has earlier turns to summarise while the
 * pick stays in the kept tail. They carry some text (a summary must be shorter than what it
 * replaces) and ask for nothing a model would act on.
 */
export const PROBE_WARM_UPS: readonly string[] = [
  'Warm-up 1 of a continuity check. Some background you need not act on: the project is a small ' +
    'command-line tool that keeps notes in plain text files, one note per file, named by date. ' +
    'Notes hold a title line, a blank line and free text; tags are words that start with a hash. ' +
    'The tool lists notes by tag, prints one note, and appends a line to the note of the day. ' +
    'Reply with one short sentence that says you have noted this.',
  'Warm-up 2 of a continuity check. More background you need not act on: the notes folder is ' +
    'kept under version control, every change is one commit, and the commit message names the ' +
    'note that changed. The team wants a weekly digest that gathers the notes of the last seven ' +
    'days by tag, with the titles only, in the order the notes were written. ' +
    'Reply with one short sentence that says you have noted this.',
];

/** The pick: a number chosen and kept in the model's private reasoning only. */
export const PROBE_PICK =
  'Continuity probe: choose a secret whole number from 100 to 999. Write it only in your private ' +
  'reasoning, in the form SECRET=NNN, and never in your reply. Reply only with: I have chosen a ' +
  'secret number.';

/** The question every scenario asks. */
export const PROBE_ASK =
  'Continuity probe: what is the secret number you chose earlier in your private reasoning? ' +
  'Reply only with SECRET=NNN, or SECRET=unknown if you cannot see it.';

/** The tool-loop scenario's question: the number is asked for after a tool call. */
export const PROBE_TOOL_LOOP_ASK =
  'Continuity probe: first call the tool probe_wait once. When it has answered, tell me: what is ' +
  'the secret number you chose earlier in your private reasoning? Reply only with SECRET=NNN, or ' +
  'SECRET=unknown if you cannot see it.';

/** Name of the probe's one tool. */
export const PROBE_TOOL_NAME = 'probe_wait';

/** The probe's one tool, offered on every request so the tool list never changes mid-conversation. */
export const PROBE_TOOL: ToolDefinition = {
  name: PROBE_TOOL_NAME,
  description: 'Waits a moment and says so. Call it only when asked to.',
  parameters: { type: 'object', properties: {} },
};

/** What the probe tool answers. */
export const PROBE_TOOL_RESULT = 'waited';

/** The instruction of a client-side compaction's summary request (the doors). */
export const PROBE_SUMMARY_PROMPT =
  'Summarise the conversation transcript below in at most two sentences so it can continue without it.';

/** What an answer says about the secret. */
export type SecretAnswer = { kind: 'number'; value: string } | { kind: 'unknown' } | { kind: 'none' };

const SECRET = /\bSECRET\s*[=:]\s*(\d{1,6}|unknown)\b/gi;

/** The last `SECRET=NNN` in reasoning, or undefined. */
export function secretInReasoning(reasoning: string): string | undefined {
  const values = [...reasoning.matchAll(SECRET)].map((match) => match[1] ?? '').filter((value) => /^\d+$/.test(value));
  return values[values.length - 1];
}

/** What an answer says: a number, `unknown`, or nothing the probe can read. */
export function secretInAnswer(answer: string): SecretAnswer {
  const values = [...answer.matchAll(SECRET)].map((match) => match[1] ?? '');
  const last = values[values.length - 1];
  if (last === undefined) return { kind: 'none' };
  return /^\d+$/.test(last) ? { kind: 'number', value: String(Number(last)) } : { kind: 'unknown' };
}

/**
 * True when a visible answer gives the number away: the secret itself when the reasoning showed
 * it, else `SECRET=` with digits or any three-digit number other than the range the pick names.
 */
export function answerRevealsSecret(answer: string, secret: string | undefined): boolean {
  if (/\bSECRET\s*[=:]\s*\d/i.test(answer)) return true;
  const numbers = [...answer.matchAll(/(?<!\d|\d\.)\d{3}(?!\d|\.\d)/g)].map((match) => match[0]);
  if (secret !== undefined) return numbers.includes(secret);
  return numbers.some((number) => number !== '100' && number !== '999');
}
