import type { JsonObject } from '../core/json.js';
import { isJsonObject } from '../core/json.js';
import type { Message, UserMessage } from '../core/message.js';
import { holdSessionLease } from '../storage/session-lease-hold.js';
import {
  compactedMessages,
  COMPACTION_DEFAULTS,
  planCompaction,
  sizingWindow,
  type CompactionPlan,
  type CompactionSettings,
} from './compaction-plan.js';
import { identifierCount, identifierIndex, renderIdentifierIndex } from './compaction-identifiers.js';
import { summariseMiddle } from './compaction-summary.js';
import { anthropicCompactionBlocker, compactWithAnthropic, leadingSystemCount } from './compaction-anthropic.js';
import { turnRouteProfile, type AgentTurnOptions } from './runtime-turn-options.js';

export { COMPACTION_SUMMARY_PROMPT, transcriptOf } from './compaction-summary.js';

/** Prefix of the user message that carries the summary in the compacted session. */
export const SUMMARY_MESSAGE_PREFIX = '[Summary of the earlier part of this session]\n';

/** The private key marking the summary message a compaction wrote (never sent: SPEC §2). */
export const SUMMARY_MARK_KEY = '_compaction_summary';

/** Compaction records kept in `model_config.compactions`, newest last. */
export const COMPACTION_RECORDS_KEPT = 20;

/** What a compaction did. */
export interface CompactionOutcome {
  plan: CompactionPlan;
  /** True when the session was compacted (in place or into a child). */
  compacted: boolean;
  /** The session that continues: the same id in place, the child otherwise. */
  sessionId: string;
  /** The child session that continues, when compaction wrote one (`compaction.in_place: false`). */
  childSessionId?: string;
  /** The record written to `model_config` (in place: `compactions[]`; child: `compaction`). */
  record?: JsonObject;
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
  | 'leaseOwner'
  | 'tools'
  | 'clientTools'
> & {
  compaction?: CompactionSettings | undefined;
  /**
   * The lease the caller holds on the session (a running turn). Without one, an in-place
   * compaction takes the session's lease for its duration (SPEC §23.6: one writer per session).
   */
  leaseId?: string | undefined;
};

const DEFAULT_SETTINGS: CompactionSettings = { threshold: 0.8, keepTurns: 20 };

/**
 * Compacts a session (SPEC §16, §26.6): summarises the middle with the session's own route and
 * keeps the head and the tail with every carrier byte for byte. In place (the default) the
 * session keeps its id and the summarised messages are archived; with `inPlace: false` a child
 * session holds the result (lineage via parent). `force` compacts even under the threshold
 * (`/compress`). Never loops: when there is nothing to summarise, or the summary would not free
 * anything, it says so and stops.
 */
export async function compressSession(
  options: CompactionOptions,
  progress: (text: string) => void = () => undefined,
  force = true,
): Promise<CompactionOutcome> {
  const settings = options.compaction ?? DEFAULT_SETTINGS;
  const inPlace = settings.inPlace ?? COMPACTION_DEFAULTS.inPlace;
  const history = await options.store.listMessages(options.sessionId);
  const charge = turnRouteProfile(options).chargeStaleThinking;
  let plan = planCompaction(history, settings, charge, force);
  const stop = (message: string): CompactionOutcome => {
    progress(message);
    return { plan, compacted: false, sessionId: options.sessionId, summarisedMessages: 0, message };
  };
  if (!plan.shouldCompact) {
    return stop(
      plan.tailStart <= plan.headEnd
        ? nothingToCompactMessage(plan)
        : `no compaction needed: about ${plan.estimate} tokens, limit ${plan.limit ?? 'not set'}`,
    );
  }
  // An automatic pass that could not get under the limit would run again before every request.
  if (!force && plan.limit !== null && plan.retainedEstimate >= plan.limit) {
    return stop(
      `compaction cannot bring this session under the limit: the first message and the kept tail alone are about ${plan.retainedEstimate} tokens (limit ${plan.limit}); start a new session or raise compaction.context_window`,
    );
  }
  const written = await writeSummary(history, plan, settings, options, progress);
  const { summaryMessage, summary, identifiers } = written;
  plan = written.plan;
  const middle = history.slice(plan.headEnd, plan.tailStart);
  const retained = compactedMessages(history, plan, summaryMessage);
  const after = planCompaction(retained, settings, charge, false);
  // Like against like: the rough estimate before and after (the usage anchor only exists before).
  if (after.roughEstimate >= plan.roughEstimate) {
    return stop(
      `compaction would free nothing (about ${plan.roughEstimate} tokens before, ${after.roughEstimate} after); stopped`,
    );
  }
  const record: JsonObject = {
    at: new Date().toISOString(),
    in_place: inPlace,
    summarised_messages: middle.length,
    summarised_by: summary.by,
    ...(summary.fallback ? { api_summary_fallback: summary.fallback } : {}),
    summary_requests: summary.requests,
    transcript_parts: summary.parts,
    identifiers: identifierCount(identifiers),
    tail: plan.tail,
    tail_budget: plan.tailBudget,
    tail_tokens: plan.tailTokens,
    kept_messages: history.length - plan.tailStart,
    kept_turns: plan.keptTurns,
    estimate_before: plan.estimate,
    estimate_after: after.estimate,
    salvaged: plan.salvaged,
  };
  if (!inPlace) return compactIntoChild(options, retained, record, plan, progress);
  return compactInPlace(options, retained, record, plan, progress);
}

/** The summary message of a compaction, the plan it fits, and what wrote it. */
interface WrittenSummary {
  plan: CompactionPlan;
  summaryMessage: UserMessage;
  summary: { by: 'anthropic' | 'hermes'; requests: number; parts: number; fallback?: string };
  identifiers: ReturnType<typeof identifierIndex>;
}

/**
 * Writes the summary. On a bound Anthropic model with on-demand compaction the API writes it
 * (compaction-anthropic.ts, SPEC §26.4): everything before the kept tail but the system prompt is
 * summarised and the signed block is kept with the summary; otherwise, or when that fails, Hermes
 * summarises the middle itself with the session's route (SPEC §16, §26.6).
 */
async function writeSummary(
  history: readonly Message[],
  plan: CompactionPlan,
  settings: CompactionSettings,
  options: CompactionOptions,
  progress: (text: string) => void,
): Promise<WrittenSummary> {
  const profile = turnRouteProfile(options);
  const modelConfig = (await options.store.getSession(options.sessionId))?.modelConfig ?? {};
  const blocker = anthropicCompactionBlocker(history, plan, profile, modelConfig);
  let fallback: string | undefined;
  if (blocker === null) {
    const from = leadingSystemCount(history);
    progress(
      `compacting: asking ${options.route.model} to summarise ${plan.tailStart - from} messages (on-demand compaction), keeping ${describeTail(plan, settings)}…`,
    );
    const api = await compactWithAnthropic(history, plan, profile, modelConfig, options);
    if (api.kind === 'compacted') {
      const identifiers = identifierIndex(history.slice(from, plan.tailStart));
      const index = renderIdentifierIndex(identifiers);
      const summaryMessage = {
        ...api.summary,
        content: `${SUMMARY_MESSAGE_PREFIX}${api.content}${index ? `\n\n${index}` : ''}`,
        [SUMMARY_MARK_KEY]: true,
      } as UserMessage;
      return {
        plan: { ...plan, headEnd: from },
        summaryMessage,
        summary: { by: 'anthropic', requests: 1, parts: 1 },
        identifiers,
      };
    }
    progress(`compacting: ${api.reason}; Hermes writes the summary`);
    fallback = api.reason;
  }
  const middle = history.slice(plan.headEnd, plan.tailStart);
  progress(`compacting: summarising ${middle.length} messages, keeping ${describeTail(plan, settings)}…`);
  const summary = await summariseMiddle(middle, sizingWindow(settings), options, progress);
  const identifiers = identifierIndex(middle);
  const index = renderIdentifierIndex(identifiers);
  const summaryMessage = {
    role: 'user',
    content: `${SUMMARY_MESSAGE_PREFIX}${summary.text}${index ? `\n\n${index}` : ''}`,
    timestamp: Date.now(),
    [SUMMARY_MARK_KEY]: true,
  } as UserMessage;
  return {
    plan,
    summaryMessage,
    summary: { by: 'hermes', requests: summary.requests, parts: summary.parts, ...(fallback ? { fallback } : {}) },
    identifiers,
  };
}

/** Writes the compacted history in the same session, archiving the summarised messages. */
async function compactInPlace(
  options: CompactionOptions,
  retained: readonly Message[],
  record: JsonObject,
  plan: CompactionPlan,
  progress: (text: string) => void,
): Promise<CompactionOutcome> {
  const { store, sessionId } = options;
  const held =
    options.leaseId === undefined
      ? await holdSessionLease(store, sessionId, { owner: options.leaseOwner ?? 'hermes compaction' })
      : undefined;
  try {
    const session = await store.getSession(sessionId);
    const previous = compactionRecords(session?.modelConfig ?? {});
    const last = previous[previous.length - 1];
    const number = (typeof last?.['number'] === 'number' ? last['number'] : previous.length) + 1;
    const entry: JsonObject = { number, ...record };
    const records = [...previous, entry].slice(-COMPACTION_RECORDS_KEPT);
    const result = await store.compactInPlace(sessionId, {
      from: plan.headEnd,
      to: plan.tailStart,
      messages: retained.slice(plan.headEnd),
      leaseId: options.leaseId ?? held?.record.leaseId,
      modelConfig: { compactions: records },
    });
    if (result.compaction !== number) {
      // The archive's own count wins (a record list edited by hand): the record says which marks are its.
      entry['number'] = result.compaction;
      await store.patchModelConfig(sessionId, { compactions: records });
    }
    const message =
      `compacted ${sessionId} in place (compaction ${result.compaction}): ${plan.tailStart - plan.headEnd} messages ` +
      `summarised and archived, about ${String(record['estimate_before'])} → ${String(record['estimate_after'])} tokens`;
    progress(message);
    return {
      plan,
      compacted: true,
      sessionId,
      record: entry,
      summarisedMessages: plan.tailStart - plan.headEnd,
      message,
    };
  } finally {
    await held?.release();
  }
}

/** `compaction.in_place: false`: a child session (lineage via parent) holds the compacted history. */
async function compactIntoChild(
  options: CompactionOptions,
  retained: readonly Message[],
  record: JsonObject,
  plan: CompactionPlan,
  progress: (text: string) => void,
): Promise<CompactionOutcome> {
  const source = await options.store.getSession(options.sessionId);
  const entry: JsonObject = { source_session_id: options.sessionId, ...record };
  // One transaction for the child, its messages and its model_config (inherited verdicts and
  // fingerprints plus the compaction entry): a failure leaves no half child.
  const child = await options.store.forkSession(options.sessionId, {
    title: `${source?.title ?? options.sessionId} (compacted)`,
    messages: retained,
    modelConfig: { ...source?.modelConfig, compaction: entry },
  });
  const message = `compacted ${options.sessionId} → ${child.id}: ${plan.tailStart - plan.headEnd} messages summarised, about ${String(record['estimate_before'])} → ${String(record['estimate_after'])} tokens`;
  progress(message);
  return {
    plan,
    compacted: true,
    sessionId: child.id,
    childSessionId: child.id,
    record: entry,
    summarisedMessages: plan.tailStart - plan.headEnd,
    message,
  };
}

/** The in-place compaction records of a session's model config, oldest first. */
export function compactionRecords(modelConfig: JsonObject): JsonObject[] {
  const records = modelConfig['compactions'];
  return Array.isArray(records) ? records.filter(isJsonObject) : [];
}

/** What the tail keeps, for the progress line. */
function describeTail(plan: CompactionPlan, settings: CompactionSettings): string {
  if (plan.tail === 'turns') {
    const salvage = plan.salvaged ? ` (salvage: ${settings.keepTurns} would not fit beside a summary)` : '';
    return `${plan.keptTurns} recent turns${salvage}`;
  }
  const floor = plan.salvaged ? '; fewer user messages than min_tail_user_messages fit beside a summary' : '';
  return `a lean tail of ${plan.tailTokens} tokens with ${plan.keptTurns} user messages (budget ${plan.tailBudget ?? 0}${floor})`;
}

/**
 * Why a session is too short to compact. The first message and the recent turns are always
 * kept, so "the last 0 turns are all there is" told the user nothing; this names what is kept.
 */
function nothingToCompactMessage(plan: CompactionPlan): string {
  if (plan.keptTurns === 0 && plan.tail === 'turns') {
    return 'nothing to compact: the session holds only its first turn, which is always kept';
  }
  if (plan.tail === 'lean') {
    return `nothing to compact: the first message and the lean tail (${plan.tailTokens} tokens, budget ${plan.tailBudget ?? 0}) hold the whole session`;
  }
  const turns = plan.keptTurns === 1 ? 'turn' : `${plan.keptTurns} turns`;
  return `nothing to compact: the first message and the last ${turns} are always kept, and nothing lies between them`;
}
