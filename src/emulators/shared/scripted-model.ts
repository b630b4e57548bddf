import { createHash } from 'node:crypto';
import { runProbeScript } from './scripted-probe.js';
import { scriptedSummary } from './scripted-summary.js';

/**
 * A deterministic scripted "model" shared by every provider emulator. It is wire-agnostic: each
 * emulator translates its wire request into {@link ScriptInput} and the {@link ScriptOutput}
 * back into its own wire shape.
 *
 * Continuity probe: every reasoning text it produces ends with a nonce `[nonce:xxxxxxxxxxxx]`
 * that is a keyed hash of the text before it. When earlier assistant turns come back, the model
 * re-checks each one's reasoning and states in its answer whether it came back intact, so tests
 * (and users) can see reasoning continuity. Stateless, so it survives emulator restarts.
 */

export type { ScriptInput, ScriptMessage, ScriptOutput } from './scripted-model-types.js';
import type { ScriptInput, ScriptMessage, ScriptOutput } from './scripted-model-types.js';

const NONCE_KEY = 'hermes-emulator-continuity';
const NONCE_PATTERN = /\[nonce:([0-9a-f]{12})\]$/;

/** Appends the continuity nonce to a reasoning text. */
export function sealReasoning(text: string): string {
  return `${text} [nonce:${nonceFor(text)}]`;
}

/** True when `reasoning` ends with a nonce that matches the text before it (came back byte-identical). */
export function isSealedIntact(reasoning: string): boolean {
  const match = NONCE_PATTERN.exec(reasoning);
  if (!match) return false;
  const body = reasoning.slice(0, match.index - 1);
  return match[1] === nonceFor(body);
}

function nonceFor(text: string): string {
  return createHash('sha256').update(NONCE_KEY).update('\0').update(text).digest('hex').slice(0, 12);
}

/** A continuity report over the earlier assistant turns of the request (SPEC §26.8). */
export interface ContinuityReport {
  /** Assistant turns in the request, foreign ones included. */
  turns: number;
  /** Own turns whose reasoning came back byte-identical. */
  intact: number;
  /** Own turns whose reasoning came back altered. */
  altered: number;
  /** Own turns that came back without reasoning. */
  missing: number;
  /**
   * Turns this model did not issue, counted apart: another model's, or ones whose reasoning came
   * back as plain text (demoted, SPEC §25.3) rather than in the reasoning carrier.
   */
  foreign: number;
}

/** A sealed reasoning text (its nonce) anywhere in a turn's visible text: reasoning demoted to text. */
const DEMOTED_PATTERN = /\[nonce:[0-9a-f]{12}\]/;

/**
 * Checks every earlier assistant turn's reasoning. Reasoning in the turn's reasoning carrier is
 * intact or altered; a turn without it is foreign when its reader says so or its text holds a
 * sealed reasoning (demoted), else missing.
 */
export function continuityReport(messages: readonly ScriptMessage[]): ContinuityReport {
  const report: ContinuityReport = { turns: 0, intact: 0, altered: 0, missing: 0, foreign: 0 };
  for (const message of messages) {
    if (message.role !== 'assistant') continue;
    report.turns += 1;
    const reasoning = message.reasoning ?? '';
    if (reasoning.trim() !== '') {
      if (isSealedIntact(reasoning)) report.intact += 1;
      else report.altered += 1;
    } else if (message.foreign === true || DEMOTED_PATTERN.test(message.text)) report.foreign += 1;
    else report.missing += 1;
  }
  return report;
}

/**
 * The sentence an answer carries about continuity (stable wording: tests match it, docs/emulators.md
 * lists it). Only the model's own turns decide `intact` or `broken`; foreign turns get a sentence of
 * their own after it.
 */
export function describeContinuity(report: ContinuityReport): string {
  if (report.turns === 0) return 'Reasoning continuity: first turn.';
  const own = report.turns - report.foreign;
  const foreign =
    report.foreign === 0 ? '' : ` Foreign turns: ${report.foreign} (not issued by this model; not counted).`;
  if (own === 0) return `Reasoning continuity: no turn of this model yet.${foreign}`;
  if (report.intact === own) return `Reasoning continuity: intact (${report.intact}/${own}).${foreign}`;
  return `Reasoning continuity: broken (${report.intact} intact, ${report.altered} altered, ${report.missing} missing of ${own}).${foreign}`;
}

/**
 * Runs the script (trailing client notes, {@link isClientNote}, skipped). Rules, in order:
 * 0. The continuity probe's questions are answered by `scripted-probe.ts` (SPEC §26.5).
 * 0. A compaction request (a `<transcript>` or `<partial-summaries>` block) is summarised
 *    (`scripted-summary.ts`).
 * 1. The last message is a tool result: answer with a summary of it (final answer).
 * 2. The last user text asks for a tool that is offered — "call the tool NAME [with {JSON}]",
 *    "read the file X" / "read X",
 *    "list files"/"list the directory [X]", "search for P [in X]", "replace [all] "A" with "B" in X",
 *    "write TEXT to X", "run `CMD`": call it.
 * 3. Otherwise answer in text, echoing the question.
 * Every answer ends with the continuity sentence. Tool call ids are deterministic
 * (`call_<turn>_<n>`), so recordings are stable.
 */
export function runScript(input: ScriptInput): ScriptOutput {
  // Compaction requests get the summary mode (scripted-summary.ts).
  const summary = scriptedSummary(input.messages);
  if (summary) return summary;
  // Notes a client adds after a tool result (`<total_tokens>…</total_tokens>`) are read, not answered.
  const messages = input.messages;
  const last = [...messages].reverse().find((message) => !isClientNote(message));
  const lastUser = [...messages]
    .reverse()
    .find((message) => message.role === 'user' && !isClientNote(message) && textToolResult(message) === undefined);
  const turn = messages.filter((message) => message.role === 'assistant').length + 1;
  const continuity = describeContinuity(continuityReport(messages));
  const question = (lastUser?.text ?? '').trim();
  const probe = runProbeScript(messages, { question, last, tools: input.tools, turn, continuity, seal: sealReasoning });
  if (probe) return probe;

  const toolResult = last?.role === 'tool' ? last.text : last ? textToolResult(last) : undefined;
  if (toolResult !== undefined) {
    const result = toolResult.length > 200 ? `${toolResult.slice(0, 200)}…` : toolResult;
    return {
      reasoning: sealReasoning(`Turn ${turn}: the tool answered; I will summarise it for "${question}".`),
      content: `The tool returned: ${result}\n${continuity}`,
      toolCalls: [],
    };
  }

  const call = toolCallFor(question, input.tools, turn);
  if (call) {
    return {
      reasoning: sealReasoning(`Turn ${turn}: to answer "${question}" I should call ${call.name}.`),
      content: '',
      toolCalls: [call],
    };
  }
  return {
    reasoning: sealReasoning(`Turn ${turn}: the user said "${question}"; a direct answer fits.`),
    content: `You said: ${question}\n${continuity}`,
    toolCalls: [],
  };
}

/**
 * A tool result a client sent as text (`[tool result NAME]` then the result, SPEC §26.2): a
 * model reads it as the result of its call.
 */
function textToolResult(message: ScriptMessage): string | undefined {
  if (message.role !== 'user') return undefined;
  const match = /^\[tool result [^\]\n]+\]\n([\s\S]*)$/.exec(message.text);
  return match ? (match[1] ?? '') : undefined;
}

/**
 * A user message that is only tagged notes (`<total_tokens>…</total_tokens>`,
 * `<system-reminder>…</system-reminder>`): context a client adds to a turn, which a model takes
 * in without answering it.
 */
function isClientNote(message: ScriptMessage): boolean {
  return message.role === 'user' && /^(?:\s*<([A-Za-z_-]+)>[\s\S]*?<\/\1>)+\s*$/.test(message.text);
}

function toolCallFor(
  question: string,
  tools: readonly string[],
  turn: number,
): { id: string; name: string; arguments: string } | null {
  const offered = new Set(tools);
  const id = `call_${turn}_1`;
  const make = (name: string, args: Record<string, string | boolean>) =>
    offered.has(name) ? { id, name, arguments: JSON.stringify(args) } : null;
  // Any offered tool by name, its arguments the JSON object given verbatim (MCP tools, say).
  let match = /\bcall (?:the )?tool ([A-Za-z0-9_-]+)(?: with (\{.*\}))?/is.exec(question);
  if (match) {
    const name = match[1] ?? '';
    return offered.has(name) ? { id, name, arguments: match[2] ?? '{}' } : null;
  }
  match = /\bread (?:the )?file ([^\s"'`]+)|\bread ([^\s"'`]+\.[a-z0-9]+)/i.exec(question);
  if (match) return make('read_file', { path: stripPunctuation(match[1] ?? match[2] ?? '') });
  match = /\blist (?:the )?(?:files|directory)(?: (?:in|of) ([^\s"'`]+))?/i.exec(question);
  if (match) return make('list_directory', { path: stripPunctuation(match[1] ?? '.') });
  match = /\bsearch (?:for )?["']?([^"'\s]+)["']?(?: in ([^\s"'`]+))?/i.exec(question);
  if (match) return make('search_files', { pattern: match[1] ?? '', path: stripPunctuation(match[2] ?? '.') });
  match = /\breplace (all )?"([^"]*)" with "([^"]*)" in ([^\s"'`]+)/i.exec(question);
  if (match) {
    const edit = { path: stripPunctuation(match[4] ?? ''), old_string: match[2] ?? '', new_string: match[3] ?? '' };
    return make('edit_file', match[1] ? { ...edit, replace_all: true } : edit);
  }
  match = /\bwrite ["']([^"']*)["'] to ([^\s"'`]+)/i.exec(question);
  if (match) return make('write_file', { path: stripPunctuation(match[2] ?? ''), content: match[1] ?? '' });
  match = /\brun `([^`]+)`/i.exec(question);
  if (match) return make('run_shell', { command: match[1] ?? '' });
  return null;
}

function stripPunctuation(value: string): string {
  return value.replace(/[?.,;:!]+$/, '');
}
