import { HermesError } from '../core/errors.js';
import type { Message } from '../core/message.js';
import { estimateTextTokens } from '../replay/replay-token-estimate.js';
import type { Transport, TransportRequest } from '../transports/shared/transport.js';
import { loadTransport } from '../transports/transport-registry.js';
import type { AgentTurnOptions } from './runtime-turn-options.js';

/**
 * The summary requests of a compaction (SPEC §26.6). What they carry: a plain transcript of the
 * summarised turns — message text, tool calls and tool results — and nothing else: no earlier
 * reasoning as text (Anthropic refuses chain of thought sent back as text, `stop_reason:
 * refusal`, `reasoning_extraction`), no opaque blob, no assistant turn to replay. Each request
 * fits the route's window: a transcript larger than one request's share is summarised in parts,
 * then the part summaries are merged (in rounds, when even they do not fit one request).
 *
 * Wire contract with the emulators' scripted summariser (`emulators/shared/scripted-summary.ts`):
 * a part travels inside `<transcript>…</transcript>`, the part summaries of a merge inside
 * `<partial-summaries>…</partial-summaries>`.
 */

/** The instruction the summariser gets (the request's system prompt). */
export const COMPACTION_SUMMARY_PROMPT =
  'You are compacting a long agent session. Summarise the conversation transcript you are given so ' +
  'the session can continue without it: the user goals, decisions taken, files and commands touched, ' +
  'tool results that still matter, and open questions. Keep every identifier exactly as written: ' +
  'file paths, commit hashes, issue and pull-request numbers, error messages, URLs, names. Be factual ' +
  'and concise; do not invent.';

/** The instruction of a merge request. */
export const COMPACTION_MERGE_PROMPT =
  'You are compacting a long agent session whose transcript was summarised in consecutive parts. ' +
  'Merge the part summaries you are given into one summary of the whole, in order, so the session can ' +
  'continue without them. Keep every identifier exactly as written: file paths, commit hashes, issue ' +
  'and pull-request numbers, error messages, URLs, names. Be factual and concise; do not invent.';

/** How large the summary requests of a window may be. */
export interface SummarySizing {
  /** Tokens of transcript (or part summaries) one request carries at most. */
  inputTokens: number;
  /** Output tokens asked for (`max_tokens`). */
  outputTokens: number;
}

/**
 * Request sizes for a context window: the input takes at most 60 % of the window less the
 * instruction, the output a tenth (256–8,192 tokens), so input + output stay well inside it.
 */
export function summarySizing(contextWindow: number): SummarySizing {
  const outputTokens = Math.min(8192, Math.max(256, Math.floor(contextWindow * 0.1)));
  const instruction = estimateTextTokens(COMPACTION_MERGE_PROMPT) + 64;
  return { inputTokens: Math.max(256, Math.floor(contextWindow * 0.6) - instruction), outputTokens };
}

/** One transcript line per message: text, tool calls and tool results; reasoning is left out. */
export function transcriptLines(messages: readonly Message[]): string[] {
  return messages.map((message) => {
    if (message.role === 'assistant') {
      const calls = (message.tool_calls ?? []).map(
        (call) => `[tool call ${call.function.name} ${call.function.arguments}]`,
      );
      return `assistant: ${[message.content ?? '', ...calls].filter(Boolean).join(' ')}`;
    }
    if (message.role === 'tool')
      return `tool result (${message.tool_name ?? message.tool_call_id}): ${message.content}`;
    if (typeof message.content === 'string') return `${message.role}: ${message.content}`;
    const text = message.content
      .map((part) => (typeof part.text === 'string' ? part.text : `[${String(part.type)}]`))
      .join(' ');
    return `${message.role}: ${text}`;
  });
}

/** Renders the messages as one plain transcript (reasoning left out). */
export function transcriptOf(messages: readonly Message[]): string {
  return transcriptLines(messages).join('\n');
}

/** A line longer than `tokens` keeps its start and end around a note of what was left out. */
function fitLine(line: string, tokens: number): string {
  if (estimateTextTokens(line) <= tokens) return line;
  // Four characters a token is the estimate's own rate (SPEC §15); a third of it spares CJK text.
  const keep = Math.max(64, Math.floor((tokens * 4) / 3));
  const head = line.slice(0, Math.floor(keep / 2));
  const tail = line.slice(line.length - Math.floor(keep / 2));
  return `${head} […${line.length - head.length - tail.length} characters left out…] ${tail}`;
}

/** Packs lines, in order, into parts of at most `tokens` each (one over-long line is cut to fit). */
export function packParts(lines: readonly string[], tokens: number): string[] {
  const parts: string[] = [];
  let current: string[] = [];
  let used = 0;
  for (const raw of lines) {
    const line = fitLine(raw, tokens);
    const cost = estimateTextTokens(line) + 1;
    if (current.length > 0 && used + cost > tokens) {
      parts.push(current.join('\n'));
      current = [];
      used = 0;
    }
    current.push(line);
    used += cost;
  }
  if (current.length > 0) parts.push(current.join('\n'));
  return parts;
}

/** The route and credentials a summary request goes out with. */
export type SummaryRouteOptions = Pick<
  AgentTurnOptions,
  'route' | 'apiKey' | 'transportFor' | 'signal' | 'fetch' | 'connectTo' | 'timeouts'
>;

/** What summarising did. */
export interface SummaryResult {
  text: string;
  /** Requests sent (parts plus merges). */
  requests: number;
  /** Transcript parts. */
  parts: number;
}

/**
 * Summarises `middle` with the session's route in requests that fit `contextWindow`; `progress`
 * gets a line before each request when there is more than one.
 */
export async function summariseMiddle(
  middle: readonly Message[],
  contextWindow: number,
  options: SummaryRouteOptions,
  progress: (text: string) => void,
): Promise<SummaryResult> {
  const sizing = summarySizing(contextWindow);
  const parts = packParts(transcriptLines(middle), sizing.inputTokens);
  let requests = 0;
  const ask = async (system: string, user: string): Promise<string> => {
    requests += 1;
    return requestSummary(system, user, sizing.outputTokens, options);
  };
  if (parts.length === 1) {
    const text = await ask(
      COMPACTION_SUMMARY_PROMPT,
      `<transcript>\n${parts[0]}\n</transcript>\nWrite the summary now.`,
    );
    return { text, requests, parts: 1 };
  }
  let summaries: string[] = [];
  for (const [index, part] of parts.entries()) {
    progress(`compacting: summarising part ${index + 1} of ${parts.length}…`);
    summaries.push(
      await ask(
        COMPACTION_SUMMARY_PROMPT,
        `This is part ${index + 1} of ${parts.length} of the transcript.\n<transcript>\n${part}\n</transcript>\nWrite the summary of this part now.`,
      ),
    );
  }
  // Merge rounds: each merges as many consecutive summaries as fit one request; bounded because
  // every round at least halves the list (a summary is at most a tenth of the window).
  for (let round = 0; summaries.length > 1 && round < 16; round += 1) {
    const groups = packParts(
      summaries.map((summary, index) => `<summary part="${index + 1}">\n${summary}\n</summary>`),
      sizing.inputTokens,
    );
    progress(`compacting: merging ${summaries.length} part summaries…`);
    const merged: string[] = [];
    for (const group of groups) {
      merged.push(
        await ask(
          COMPACTION_MERGE_PROMPT,
          `<partial-summaries>\n${group}\n</partial-summaries>\nWrite the merged summary now.`,
        ),
      );
    }
    summaries = merged;
  }
  return { text: summaries.join('\n\n'), requests, parts: parts.length };
}

/** The transport of a compaction's requests: the caller's, else the route's own. */
export async function summaryTransport(options: SummaryRouteOptions): Promise<Transport> {
  return options.transportFor ? options.transportFor(options.route.api) : await loadTransport(options.route.api);
}

/** How a compaction's requests reach the route: credentials, abort signal, networking, time limits. */
export function summaryConnection(
  options: SummaryRouteOptions,
): Pick<TransportRequest, 'route' | 'apiKey' | 'signal' | 'fetch' | 'connectTo' | 'timeouts'> {
  return {
    route: options.route,
    apiKey: options.apiKey,
    signal: options.signal,
    fetch: options.fetch,
    connectTo: options.connectTo,
    timeouts: options.timeouts,
  };
}

/** One summary request: no tools, reasoning off, no assistant turn; the answer's text. */
async function requestSummary(
  system: string,
  user: string,
  maxTokens: number,
  options: SummaryRouteOptions,
): Promise<string> {
  const transport = await summaryTransport(options);
  const stream = transport.send({
    ...summaryConnection(options),
    history: [
      { role: 'system', content: system },
      { role: 'user', content: user },
    ],
    tools: [],
    reasoning: { enabled: false },
    stream: true,
    maxTokens,
  });
  let message: Awaited<ReturnType<typeof stream.result>>;
  try {
    message = await stream.result();
  } catch (error) {
    throw new HermesError(`compaction failed while summarising: ${(error as Error).message}`, { cause: error });
  }
  const text = (message.content ?? '').trim();
  if (text) return text;
  const why = message.finish_reason ? ` (finish reason: ${message.finish_reason})` : '';
  throw new HermesError(`compaction failed while summarising: the model returned an empty summary${why}`);
}
