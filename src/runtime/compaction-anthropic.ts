import { ApiError, HermesError } from '../core/errors.js';
import type { JsonObject } from '../core/json.js';
import type { Message, UserMessage } from '../core/message.js';
import { prefixStartDigest } from '../replay/anthropic-block-binding.js';
import {
  ANTHROPIC_COMPACTION_KEY,
  type AnthropicCompactionCarrier,
  compactionCarrierJson,
  isCompactionBlock,
} from '../replay/anthropic-compaction.js';
import type { RouteProfile } from '../replay/replay-route-profile.js';
import type { SessionStore } from '../storage/session-store.js';
import { BUILTIN_TOOLS, toolDefinitions } from '../tools/tool-registry.js';
import type { TransportRequest } from '../transports/shared/transport.js';
import type { CompactionPlan } from './compaction-plan.js';
import { COMPACTION_SUMMARY_PROMPT, summaryConnection, summaryTransport } from './compaction-summary.js';
import {
  anthropicCompactionOffRoutes,
  loadRouteLearned,
  persistAnthropicCompactionOff,
} from './runtime-route-memory.js';
import type { AgentTurnOptions } from './runtime-turn-options.js';

/**
 * Compaction by the API on a bound Anthropic model (SPEC §26.4, docs/wire.md §2.7 "Server-side
 * compaction"): instead of writing the summary itself, Hermes sends the messages to summarise —
 * everything before the kept tail, with the same `system`, `tools` and thinking settings as a
 * turn — with `compaction: {"type": "summarize"}`, and keeps the signed `compaction` block it gets
 * back, verbatim, in a private carrier of the summary message. The kept turns follow it unchanged,
 * so their signed thinking stays valid and keeps travelling. A 4xx naming compaction turns the
 * feature off for the route in the session (like SPEC §24.7); any other failure falls back to
 * Hermes's own summary for this compaction only.
 */

/** What the API-written compaction needs of the caller. */
export type AnthropicCompactionOptions = Pick<
  AgentTurnOptions,
  | 'route'
  | 'apiKey'
  | 'reasoning'
  | 'tools'
  | 'clientTools'
  | 'transportFor'
  | 'signal'
  | 'fetch'
  | 'connectTo'
  | 'timeouts'
> & { store: SessionStore; sessionId: string };

/** The outcome: the summary message and where the summarised range starts, or why Hermes summarises itself. */
export type AnthropicCompactionResult =
  { kind: 'compacted'; summary: UserMessage; from: number; content: string } | { kind: 'fallback'; reason: string };

/** Appended to Hermes's summary prompt, as Anthropic's compaction docs advise for `instructions`. */
const NO_TOOLS = ' Do not call tools; respond with the summary text only.';

/** The output budget of the compaction request: it also covers any thinking before the summary. */
const COMPACTION_MAX_TOKENS = 16_384;

/**
 * Why the API cannot write this compaction's summary, or null when it can: the route must have
 * on-demand compaction on and not refused, the range must hold conversation and no system
 * message of its own (it would change `system`), and the first kept message must go out with a
 * different role from the last summarised one (the docs' condition for kept thinking: otherwise
 * the API merges the two).
 */
export function anthropicCompactionBlocker(
  history: readonly Message[],
  plan: Pick<CompactionPlan, 'tailStart'>,
  profile: RouteProfile,
  modelConfig: JsonObject,
): string | null {
  if (profile.route.api !== 'anthropic_messages' || !profile.anthropic.onDemandCompaction) {
    return 'on-demand compaction not on for this route';
  }
  if (anthropicCompactionOffRoutes(modelConfig).includes(profile.routeKey)) {
    return `on-demand compaction was refused on ${profile.routeKey} in this session`;
  }
  const from = leadingSystemCount(history);
  if (plan.tailStart <= from) return 'nothing before the kept tail to summarise';
  if (history.slice(from, plan.tailStart).some((message) => message.role === 'system')) {
    return 'a system message lies in the range to summarise';
  }
  const last = history[plan.tailStart - 1];
  const next = history[plan.tailStart];
  if (last && next && wireRole(last) === wireRole(next)) {
    return 'the kept tail starts with a message of the same role as the last summarised one';
  }
  return null;
}

/** The Messages role a stored message goes out as (a tool result is a `user` message). */
function wireRole(message: Message): string {
  return message.role === 'assistant' ? 'assistant' : 'user';
}

/** The system messages at the head of a history (they become `system`, never summarised). */
export function leadingSystemCount(history: readonly Message[]): number {
  let count = 0;
  while (history[count]?.role === 'system') count += 1;
  return count;
}

/** Asks the route for the summary of `history[0, tailStart)` (see the file comment). */
export async function compactWithAnthropic(
  history: readonly Message[],
  plan: Pick<CompactionPlan, 'tailStart'>,
  profile: RouteProfile,
  modelConfig: JsonObject,
  options: AnthropicCompactionOptions,
): Promise<AnthropicCompactionResult> {
  const transport = await summaryTransport(options);
  const request: TransportRequest = {
    ...summaryConnection(options),
    profile,
    learned: await loadRouteLearned(options.store, modelConfig, profile),
    history: history.slice(0, plan.tailStart),
    tools: options.clientTools ?? toolDefinitions(options.tools ?? BUILTIN_TOOLS),
    // Thinking on, as on the turns: the summarised messages must go out as they went then (their
    // signed thinking included), or the kept turns' blocks would be bound to another prefix.
    reasoning: options.reasoning.enabled ? options.reasoning : { enabled: true },
    stream: true,
    maxTokens: COMPACTION_MAX_TOKENS,
    compaction: { instructions: `${COMPACTION_SUMMARY_PROMPT}${NO_TOOLS}` },
  };
  const prepared = transport.prepare(request);
  if (prepared.body['compaction'] === undefined || !prepared.bindingPrefix) {
    return { kind: 'fallback', reason: 'the request could not ask for on-demand compaction' };
  }
  let answer: Awaited<ReturnType<ReturnType<typeof transport.send>['result']>>;
  try {
    answer = await transport.send(request, prepared).result();
  } catch (error) {
    if (error instanceof ApiError && error.status >= 400 && error.status < 500 && /compaction/i.test(error.body)) {
      await persistAnthropicCompactionOff(options.store, options.sessionId, modelConfig, profile.routeKey);
      return {
        kind: 'fallback',
        reason: `${profile.routeKey} refused on-demand compaction (${error.status}); off for this route in this session`,
      };
    }
    if (error instanceof HermesError && options.signal?.aborted) throw error;
    return { kind: 'fallback', reason: `the compaction request failed: ${(error as Error).message}` };
  }
  const blocks = (answer.anthropic_content_blocks ?? []).filter(isCompactionBlock);
  const block = blocks[0];
  if (answer.finish_reason !== 'compaction' || blocks.length !== 1 || !block || typeof block['content'] !== 'string') {
    return { kind: 'fallback', reason: `the API wrote no summary (stop_reason ${answer.finish_reason ?? 'none'})` };
  }
  const carrier: AnthropicCompactionCarrier = {
    block: { ...block },
    endpointClass: profile.anthropic.endpointClass,
    model: options.route.model,
    prefixStart: prefixStartDigest(prepared.body['system'], prepared.body['tools']),
    prefixState: prepared.bindingPrefix.snapshot(),
  };
  const summary = {
    role: 'user',
    content: block['content'],
    timestamp: Date.now(),
    [ANTHROPIC_COMPACTION_KEY]: compactionCarrierJson(carrier),
  } as unknown as UserMessage;
  return { kind: 'compacted', summary, from: leadingSystemCount(history), content: block['content'] };
}
