import { ApiError, HermesError } from '../core/errors.js';
import type { AssistantMessage } from '../core/message.js';
import {
  runAgentTurn,
  TurnInterruptedError,
  type AgentEvent,
  type AgentTurnOptions,
  type TurnResult,
} from '../runtime/agent-turn.js';
import type { GatewayTurnContext } from './gateway-types.js';
import type { HeldSessionLease } from '../storage/session-lease-hold.js';
import { SessionBusyError, SessionLeaseLostError } from '../storage/session-lease.js';
import { StorageError } from '../storage/storage-errors.js';
import { SessionChangedError } from '../storage/session-store-rules.js';
import { GatewayHttpError, unknownSession } from './gateway-errors.js';
import { TurnSessionMissingError } from '../runtime/runtime-turn-start.js';
import { knownSecrets, redactError } from '../core/redact.js';
import { TurnKeyReusedError } from '../runtime/runtime-turn-key.js';
import { withFields } from '../core/with-fields.js';

/**
 * Runs one gateway turn through `runAgentTurn` (which persists every message) and folds the
 * agent's progress into what an OpenAI client sees. Tool calls run server-side, so the client
 * gets the final answer, never `tool_calls` to execute.
 */

/** Progress of a turn in OpenAI chat terms. */
export type GatewayTurnEvent =
  | { type: 'reasoning'; text: string }
  | { type: 'content'; text: string }
  | { type: 'tool-result'; id: string; name: string; content: string; isError: boolean };

/** The completed turn. */
export interface GatewayTurnOutcome {
  result: TurnResult;
  /** Visible text of every assistant message of the turn, blank-line separated. */
  content: string;
  /** Readable reasoning of every assistant message of the turn, blank-line separated. */
  reasoning: string;
  /** Milliseconds spent waiting on the provider (request sent → response finished), summed. */
  providerMs: number;
}

/** Options of {@link runGatewayTurn}. */
export interface GatewayTurnRun {
  sessionId: string;
  userText: string;
  signal?: AbortSignal | undefined;
  /**
   * A session lease the caller took for this turn (SPEC §23.6). Without one the turn takes the
   * lease with its question and drops it with its answer, two store writes in all.
   */
  lease?: HeldSessionLease | undefined;
  /** The client's `Idempotency-Key`: a retried turn is answered or continued, never stored twice. */
  turnKey?: string | undefined;
  /** Receives live deltas (streaming responses). */
  onEvent?: (event: GatewayTurnEvent) => void;
  /** Told once the turn's user message is stored (a streaming answer starts then). */
  onUserStored?: () => void;
  /** A session the turn creates with its first write (`AgentTurnOptions.newSession`). */
  newSession?: AgentTurnOptions['newSession'];
  /** A new session's system prompt, stored before its first message. */
  systemPrompt?: string | undefined;
}

/**
 * Runs the turn. Provider failures become a 502 {@link GatewayHttpError} carrying the
 * provider's own text; other failures a 500.
 */
export async function runGatewayTurn(context: GatewayTurnContext, run: GatewayTurnRun): Promise<GatewayTurnOutcome> {
  const contents: string[] = [];
  const reasonings: string[] = [];
  let providerMs = 0;
  let requestStartedAt = 0;
  // Deltas seen since the last request was sent: a non-streaming transport only reports the
  // finished message, whose text is then emitted whole so streaming clients still see it.
  let sawContent = false;
  let sawReasoning = false;
  const emit = run.onEvent ?? (() => undefined);
  const onEvent = (event: AgentEvent) => {
    switch (event.type) {
      case 'request-sent':
        requestStartedAt = performance.now();
        sawContent = false;
        sawReasoning = false;
        return;
      case 'reasoning-delta':
        if (!sawReasoning && reasonings.length) emit({ type: 'reasoning', text: '\n\n' });
        sawReasoning = true;
        emit({ type: 'reasoning', text: event.text });
        return;
      case 'text-delta':
        if (!sawContent && contents.length) emit({ type: 'content', text: '\n\n' });
        sawContent = true;
        emit({ type: 'content', text: event.text });
        return;
      case 'error':
        providerMs += performance.now() - requestStartedAt;
        return;
      case 'finish': {
        providerMs += performance.now() - requestStartedAt;
        const reasoning = readableReasoning(event.message);
        const content = event.message.content ?? '';
        if (reasoning && !sawReasoning) {
          emit({ type: 'reasoning', text: reasonings.length ? `\n\n${reasoning}` : reasoning });
        }
        if (content && !sawContent) emit({ type: 'content', text: contents.length ? `\n\n${content}` : content });
        if (reasoning) reasonings.push(reasoning);
        if (content) contents.push(content);
        return;
      }
      case 'tool-result':
        emit({ type: 'tool-result', id: event.id, name: event.name, content: event.content, isError: event.isError });
        return;
      case 'user-stored':
        run.onUserStored?.();
        return;
      default:
        return;
    }
  };
  let result: TurnResult;
  try {
    result = await runAgentTurn(
      run.userText,
      withFields(context.turn, {
        store: context.store,
        sessionId: run.sessionId,
        route: context.route.route,
        apiKey: context.route.apiKey,
        sessionRoute: context.route.sessionRoute,
        fetch: context.route.fetch,
        connectTo: context.route.connectTo,
        workspace: context.workspace,
        // Tools that need approval (writing files, shell) are refused unless the gateway runs with --yolo:
        // the refusal is a tool error the model sees, never a prompt nobody can answer.
        approve: async () => context.yolo,
        logger: context.logger,
        signal: run.signal,
        lease: run.lease,
        leaseOwner: GATEWAY_LEASE_OWNER,
        turnKey: run.turnKey,
        newSession: run.newSession,
        systemPrompt: run.systemPrompt,
        // A client that went away holds nothing of the turn: the store keeps nothing of it either.
        takeBackWhenInterrupted: true,
        warmHistories: context.warmHistories,
        onEvent,
      }),
    );
  } catch (error) {
    // The gateway's exit for provider failures: the route's key and every credential shape redacted.
    throw redactError(toHttpError(error), knownSecrets(context.route.apiKey, process.env));
  }
  // A retried turn that had already finished is answered from the store: no provider events.
  if (!contents.length && !reasonings.length && result.answer && !result.stoppedAtCap) {
    if (result.reasoning) emit({ type: 'reasoning', text: result.reasoning });
    emit({ type: 'content', text: result.answer });
    if (result.reasoning) reasonings.push(result.reasoning);
    contents.push(result.answer);
  }
  if (result.stoppedAtCap) {
    emit({ type: 'content', text: contents.length ? `\n\n${result.answer}` : result.answer });
    contents.push(result.answer);
  }
  return { result, content: contents.join('\n\n'), reasoning: reasonings.join('\n\n'), providerMs };
}

/** How a gateway names itself to a process that finds a session busy. */
export const GATEWAY_LEASE_OWNER = 'hermes gateway';

/** Readable reasoning of a stored assistant message: `reasoning`, else non-blank `reasoning_content`. */
function readableReasoning(message: AssistantMessage): string {
  if (message.reasoning?.trim()) return message.reasoning;
  if (message.reasoning_content?.trim()) return message.reasoning_content;
  return '';
}

/** Maps a runtime failure to the status an OpenAI client understands. */
export function toHttpError(error: unknown): GatewayHttpError {
  if (error instanceof GatewayHttpError) return error;
  if (error instanceof TurnSessionMissingError) return unknownSession(error.sessionId);
  if (error instanceof SessionBusyError) return sessionBusy(error);
  if (error instanceof SessionChangedError) {
    return new GatewayHttpError(409, error.message, 'conflict_error', 'session_changed');
  }
  if (error instanceof SessionLeaseLostError) {
    return new GatewayHttpError(409, error.message, 'conflict_error', 'session_lease_lost');
  }
  if (error instanceof StorageError) return new GatewayHttpError(500, error.message, 'server_error', 'storage_error');
  if (error instanceof ApiError) {
    return new GatewayHttpError(
      502,
      `the provider answered HTTP ${error.status}: ${error.message}`,
      'provider_error',
      `provider_${error.status}`,
    );
  }
  if (error instanceof TurnKeyReusedError) {
    return new GatewayHttpError(422, error.message, 'invalid_request_error', 'idempotency_key_reused');
  }
  if (error instanceof TurnInterruptedError) {
    return new GatewayHttpError(500, error.message, 'server_error', 'turn_interrupted');
  }
  if (error instanceof HermesError) return new GatewayHttpError(502, error.message, 'provider_error');
  return new GatewayHttpError(500, `unexpected gateway error: ${(error as Error).message}`, 'server_error');
}

/** 409 for a session whose lease another process holds: the busy line names the holder. */
export function sessionBusy(error: SessionBusyError): GatewayHttpError {
  return new GatewayHttpError(409, error.message, 'conflict_error', 'session_busy');
}
