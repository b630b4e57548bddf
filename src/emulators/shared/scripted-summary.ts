import type { ScriptMessage, ScriptOutput } from './scripted-model-types.js';

/**
 * The scripted model's summary mode: how the emulators answer Hermes's compaction requests
 * (SPEC §26.6, `runtime/compaction-summary.ts`). A request whose last user message holds a
 * `<transcript>…</transcript>` part is summarised; one holding `<partial-summaries>…</partial-summaries>`
 * is merged. The answer is deterministic and deliberately lossy, like a terse real summariser:
 * it counts what happened and names the tools, but quotes no identifier (no path, hash, issue
 * number, URL or error text), so a test can prove the stored summary keeps them anyway. It also
 * says how many of the emulators' own sealed reasoning texts (`[nonce:…]`) the request quoted:
 * a compaction request must quote none.
 */

const TRANSCRIPT = /<transcript>\n?([\s\S]*?)\n?<\/transcript>/;
const PARTIAL_SUMMARIES = /<partial-summaries>\n?([\s\S]*?)\n?<\/partial-summaries>/;
const SEALED_REASONING = /\[nonce:[0-9a-f]{12}\]/g;

/** The sentence about quoted reasoning (stable wording: tests match it). */
export function quotedReasoningSentence(count: number): string {
  return count === 0
    ? 'Earlier reasoning quoted in the request: none.'
    : `Earlier reasoning quoted in the request: ${count} sealed reasoning texts.`;
}

/** The summary answer when `messages` is a compaction request; null otherwise. */
export function scriptedSummary(messages: readonly ScriptMessage[]): ScriptOutput | null {
  const lastUser = messages.findLast((message) => message.role === 'user');
  if (!lastUser) return null;
  // The request's quoted reasoning is counted only for a summary request: any other request (a
  // long conversation resent every turn) is not scanned.
  const transcript = TRANSCRIPT.exec(lastUser.text);
  if (transcript) return answer(summariseTranscript(transcript[1] ?? ''), quotedReasoning(messages));
  const partial = PARTIAL_SUMMARIES.exec(lastUser.text);
  if (partial) return answer(mergeSummaries(partial[1] ?? ''), quotedReasoning(messages));
  return null;
}

/** How many of the emulators' sealed reasoning texts the request's messages quote. */
function quotedReasoning(messages: readonly ScriptMessage[]): number {
  let quoted = 0;
  for (const message of messages) quoted += (message.text.match(SEALED_REASONING) ?? []).length;
  return quoted;
}

function answer(text: string, quoted: number): ScriptOutput {
  return {
    reasoning: 'Summary request: counting what the transcript holds.',
    content: `${text} ${quotedReasoningSentence(quoted)}`,
    toolCalls: [],
  };
}

/** Counts per role and tool, in words only. */
function summariseTranscript(transcript: string): string {
  const lines = transcript.split('\n');
  let messages = 0;
  let users = 0;
  let answers = 0;
  let results = 0;
  const tools = new Map<string, number>();
  for (const line of lines) {
    if (/^(?:user|system): /.test(line)) {
      messages += 1;
      users += 1;
    } else if (line.startsWith('assistant: ')) {
      messages += 1;
      answers += 1;
      for (const call of line.matchAll(/\[tool call ([A-Za-z0-9_-]+) /g)) {
        const name = call[1] ?? '';
        tools.set(name, (tools.get(name) ?? 0) + 1);
      }
    } else if (line.startsWith('tool result (')) {
      messages += 1;
      results += 1;
    }
  }
  const calls = [...tools.values()].reduce((total, count) => total + count, 0);
  const named = [...tools.entries()].map(([name, count]) => `${name} ×${count}`).join(', ');
  return (
    `Scripted summary of a transcript of ${messages} messages: the user wrote ${users}, the assistant ` +
    `answered ${answers} times and called tools ${calls} times${named ? ` (${named})` : ''}; ${results} tool results came back.`
  );
}

/** Adds up the counts of the part summaries. */
function mergeSummaries(text: string): string {
  const parts = [...text.matchAll(/a transcript of (\d+) messages/g)].map((match) => Number(match[1]));
  const merged = [...text.matchAll(/covering (\d+) messages/g)].map((match) => Number(match[1]));
  const total = [...parts, ...merged].reduce((sum, count) => sum + count, 0);
  const count = (text.match(/<summary part=/g) ?? []).length;
  return `Scripted merge of ${count} part summaries covering ${total} messages.`;
}
