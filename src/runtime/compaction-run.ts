import { HermesError } from '../core/errors.js';
import type { Message, UserMessage } from '../core/message.js';
import { loadTransport } from '../transports/transport-registry.js';
import { compactedMessages, planCompaction, type CompactionPlan, type CompactionSettings } from './compaction-plan.js';
import { turnRouteProfile, type AgentTurnOptions } from './runtime-turn-options.js';

/** The instruction the session's own model gets for the summary. */
export const COMPACTION_SUMMARY_PROMPT =
  'You are compacting a long agent session. Summarise the conversation transcript below so the ' +
  'session can continue without it: the user goals, decisions taken, files and commands touched, ' +
  'tool results that still matter, and open questions. Be factual and concise; do not invent.';

/** Prefix of the user message that carries the summary in the compacted session. */
export const SUMMARY_MESSAGE_PREFIX = '[Summary of the earlier part of this session]\n';

/** What a compaction did. */
export interface CompactionOutcome {
  plan: CompactionPlan;
  /** The child session that continues, when compaction happened. */
  childSessionId?: string;
  summarisedMessages: number;
  message: string;
}

type CompactionOptions = Pick<
  AgentTurnOptions,
  | 'store'
  | 'sessionId'
  | 'route'
  | 'apiKey'
  | 'reasoning'
  | 'echoOptIn'
  | 'routeOverrides'
  | 'transportFor'
  | 'signal'
  | 'fetch'
  | 'connectTo'
  | 'timeouts'
> & { compaction?: CompactionSettings | undefined };

const DEFAULT_SETTINGS: CompactionSettings = { threshold: 0.8, keepTurns: 20 };

/**
 * Compacts a session (SPEC §16): summarises the middle with the session's own route and writes a
 * child session (lineage via parent) holding the head, the summary and the retained tail with
 * every carrier byte for byte. `force` compacts even under the threshold (`/compress`). Never
 * loops: when there is nothing to summarise, or the summary would not free anything, it says so
 * and stops.
 */
export async function compressSession(
  options: CompactionOptions,
  progress: (text: string) => void = () => undefined,
  force = true,
): Promise<CompactionOutcome> {
  const settings = options.compaction ?? DEFAULT_SETTINGS;
  const history = await options.store.listMessages(options.sessionId);
  const charge = turnRouteProfile(options).chargeStaleThinking;
  const plan = planCompaction(history, settings, charge, force);
  if (!plan.shouldCompact) {
    const message =
      plan.tailStart <= plan.headEnd
        ? nothingToCompactMessage(plan.keptTurns)
        : `no compaction needed: about ${plan.estimate} tokens, limit ${plan.limit ?? 'not set'}`;
    progress(message);
    return { plan, summarisedMessages: 0, message };
  }
  const middle = history.slice(plan.headEnd, plan.tailStart);
  const salvage = plan.salvaged ? ` (salvage: ${settings.keepTurns} would not fit beside a summary)` : '';
  progress(`compacting: summarising ${middle.length} messages, keeping ${plan.keptTurns} recent turns${salvage}…`);
  const summary = await summarise(middle, options);
  const summaryMessage: UserMessage = {
    role: 'user',
    content: SUMMARY_MESSAGE_PREFIX + summary,
    timestamp: Date.now(),
  };
  const retained = compactedMessages(history, plan, summaryMessage);
  const after = planCompaction(retained, settings, charge, false);
  // Like against like: the rough estimate before and after (the usage anchor only exists before).
  if (after.roughEstimate >= plan.roughEstimate) {
    const message = `compaction would free nothing (about ${plan.roughEstimate} tokens before, ${after.roughEstimate} after); stopped`;
    progress(message);
    return { plan, summarisedMessages: 0, message };
  }
  const source = await options.store.getSession(options.sessionId);
  // One transaction for the child, its messages and its model_config (inherited verdicts and
  // fingerprints plus the compaction entry): a failure leaves no half child.
  const child = await options.store.forkSession(options.sessionId, {
    title: `${source?.title ?? options.sessionId} (compacted)`,
    messages: retained,
    modelConfig: {
      ...source?.modelConfig,
      compaction: {
        source_session_id: options.sessionId,
        at: new Date().toISOString(),
        summarised_messages: middle.length,
        kept_turns: plan.keptTurns,
        estimate_before: plan.estimate,
        estimate_after: after.estimate,
        salvaged: plan.salvaged,
      },
    },
  });
  const message = `compacted ${options.sessionId} → ${child.id}: ${middle.length} messages summarised, about ${plan.estimate} → ${after.estimate} tokens`;
  progress(message);
  return { plan, childSessionId: child.id, summarisedMessages: middle.length, message };
}

/** Renders the middle as a plain transcript (tool calls and results included, reasoning left out). */
export function transcriptOf(messages: readonly Message[]): string {
  return messages
    .map((message) => {
      if (message.role === 'assistant') {
        const calls = (message.tool_calls ?? []).map(
          (call) => `[tool call ${call.function.name} ${call.function.arguments}]`,
        );
        return `assistant: ${[message.content ?? '', ...calls].filter(Boolean).join(' ')}`;
      }
      if (message.role === 'tool')
        return `tool result (${message.tool_name ?? message.tool_call_id}): ${message.content}`;
      const content = typeof message.content === 'string' ? message.content : JSON.stringify(message.content);
      return `${message.role}: ${content}`;
    })
    .join('\n');
}

async function summarise(middle: readonly Message[], options: CompactionOptions): Promise<string> {
  const transport = options.transportFor
    ? options.transportFor(options.route.api)
    : await loadTransport(options.route.api);
  // The transcript travels in the system prompt and the user turn only asks for the summary, so
  // the request carries no replayed reasoning at all: any route accepts it.
  const history: Message[] = [
    { role: 'system', content: `${COMPACTION_SUMMARY_PROMPT}\n\n<transcript>\n${transcriptOf(middle)}\n</transcript>` },
    { role: 'user', content: 'Write the summary of the transcript now.' },
  ];
  const stream = transport.send({
    route: options.route,
    history,
    tools: [],
    reasoning: { enabled: false },
    stream: true,
    apiKey: options.apiKey,
    signal: options.signal,
    fetch: options.fetch,
    connectTo: options.connectTo,
    timeouts: options.timeouts,
  });
  try {
    const message = await stream.result();
    const text = (message.content ?? '').trim();
    if (!text) throw new HermesError('the model returned an empty summary');
    return text;
  } catch (error) {
    throw new HermesError(`compaction failed while summarising: ${(error as Error).message}`, { cause: error });
  }
}

/**
 * Why a session is too short to compact. The first message and the recent turns are always
 * kept, so "the last 0 turns are all there is" told the user nothing; this names what is kept.
 */
function nothingToCompactMessage(keptTurns: number): string {
  if (keptTurns === 0) return 'nothing to compact: the session holds only its first turn, which is always kept';
  const turns = keptTurns === 1 ? 'turn' : `${keptTurns} turns`;
  return `nothing to compact: the first message and the last ${turns} are always kept, and nothing lies between them`;
}
