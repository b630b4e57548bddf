import { parseChatRequest, type GatewayChatRequest } from './gateway-chat-request.js';
import { DEFAULT_JSON_BODY_BOUNDS, readJsonBody } from './gateway-bounded-json.js';
import { GatewayHttpError } from './gateway-errors.js';
import { randomHex } from './gateway-random-ids.js';
import type { SessionTurnLock } from './gateway-session-lock.js';
import {
  runGatewayTurn,
  toHttpError,
  type GatewayTurnEvent,
  type GatewayTurnOutcome,
  type GatewayTurnRun,
} from './gateway-turn.js';
import type { GatewayTurnContext } from './gateway-types.js';
import { clientAbort, type ChatRequestSource } from './gateway-request-source.js';
import { knownSecrets, redactError } from '../core/redact.js';
import { withFields } from '../core/with-fields.js';
import { newOwnedSessionId, ownedSessionId } from '../storage/store-users.js';

/**
 * `POST /v1/chat/completions`: picks the session (`X-Hermes-Session-Id`
 * header, else the `session_id` body field, else a new session whose id comes back in the
 * `X-Hermes-Session-Id` response header), serializes turns per session, runs the agent turn and
 * answers as `chat.completion` JSON or `chat.completion.chunk` SSE ending with `data: [DONE]`.
 * Reasoning travels as `reasoning_content` on the message (and on deltas), as clients expect.
 */

/** Header that selects the session and reports it back. */
export const SESSION_HEADER = 'X-Hermes-Session-Id';

/**
 * The client's key for a turn: a client whose answer was lost (its gateway died) sends the
 * turn again with the same key, to any gateway of the fleet, and it is answered or continued
 * from the store, never stored twice.
 */
export const IDEMPOTENCY_HEADER = 'Idempotency-Key';

/** What the chat handler needs. */
export interface GatewayChatDependencies {
  context: GatewayTurnContext;
  lock: SessionTurnLock;
  /** Told the session an answer names in its `X-Hermes-Session-Id` header (for the request log). */
  onAnswer?: (sessionId: string) => void;
  /**
   * The pass-through mode for a body that carries client `tools` (gateway-chat-tools.ts): its
   * response, or null when the body has none. Absent: client tools are ignored.
   */
  clientTools?: ((body: unknown) => Promise<Response> | null) | undefined;
}

/**
 * Largest request body accepted. Clients resend whole conversations, so this is generous; the
 * gateway only uses the new user message(s), and an unbounded read would let one request take
 * the process's memory (nesting and value count are bounded too: gateway-bounded-json.ts).
 */
export const MAX_REQUEST_BYTES = DEFAULT_JSON_BODY_BOUNDS.maxBytes;

/** Handles one chat-completions request; never throws (failures are OpenAI error envelopes). */
export async function chatCompletionsResponse(
  request: ChatRequestSource,
  dependencies: GatewayChatDependencies,
): Promise<Response> {
  let body: unknown;
  try {
    body = await readJsonBody(request);
  } catch (error) {
    return errorResponse(toHttpError(error));
  }
  const passThrough = dependencies.clientTools?.(body);
  if (passThrough) return passThrough;
  let unlock: (() => void) | null = null;
  try {
    const parsed = parseChatRequest(body);
    const { context, lock } = dependencies;
    const target = resolveSession(context, request.header(SESSION_HEADER) ?? parsed.sessionId, parsed, request.owner);
    const { sessionId } = target;
    // Turns of this process wait in its per-session queue; a turn of another process (a CLI, a
    // second gateway) holds the store's session lease, and this request gets 409 naming it.
    unlock = await lock.acquire(sessionId);
    if (!unlock) {
      throw new GatewayHttpError(
        409,
        `session "${sessionId}" already has ${lock.pending(sessionId)} turns running or queued; ` +
          'wait for an answer before sending more to this session',
        'conflict_error',
        'session_busy',
      );
    }
    const userText = parsed.userTexts.join('\n\n');
    const turnKey = request.header(IDEMPOTENCY_HEADER)?.trim() || undefined;
    const turn = withFields(target, { userText, turnKey });
    // The turn takes the session's lease with its question and drops it with its answer, in the
    // store (runtime-turn-start.ts): a client that sends its next turn to another gateway of the
    // fleet as soon as it has the answer finds the session free.
    const queued = unlock;
    unlock = null;
    if (parsed.stream) {
      const response = await streamingResponse(context, turn, parsed, queued, request);
      dependencies.onAnswer?.(sessionId);
      return response;
    }
    // The request's signal aborts when the client disconnects: the turn stops (nothing partial is
    // stored) and the session is released instead of waiting on the provider.
    const outcome = await runGatewayTurn(context, withFields(turn, { signal: request.signal })).finally(queued);
    dependencies.onAnswer?.(outcome.result.sessionId);
    return jsonResponse(completionBody(context, outcome), {
      headers: {
        [SESSION_HEADER]: outcome.result.sessionId,
        'Server-Timing': serverTiming(outcome),
      },
    });
  } catch (error) {
    return errorResponse(toHttpError(error));
  } finally {
    unlock?.();
  }
}

/** An OpenAI error envelope response. */
export function errorResponse(error: GatewayHttpError, headers: Record<string, string> = {}): Response {
  return jsonResponse(redactError(error, knownSecrets(undefined, process.env)).body(), {
    status: error.status,
    headers,
  });
}

/**
 * A JSON response, as `Response.json` makes it. Built from the serialized text: the Node adapter
 * (`@hono/node-server`) writes a response whose body is a string straight to the socket, while
 * `Response.json`'s body is a web stream it has to read chunk by chunk.
 */
function jsonResponse(body: unknown, init: { status?: number; headers?: Record<string, string> }): Response {
  return new Response(JSON.stringify(body), {
    status: init.status ?? 200,
    headers: { 'content-type': 'application/json', ...init.headers },
  });
}

/** The session a chat turn runs on, and how to create it when it is new. */
interface ChatTurnTarget {
  sessionId: string;
  newSession?: GatewayTurnRun['newSession'];
  systemPrompt?: string | undefined;
}

/**
 * The session to use: the one named (404 when unknown) or a new one, created by the turn's first
 * write with its question (never stored empty), whose first message is the client's system
 * prompt, else the gateway's default one (`hermes chat`'s, docs/gateway.md). A gateway user's
 * ids lie in its own namespace (`store-users.ts`, SPEC §26.10).
 */
function resolveSession(
  context: GatewayTurnContext,
  requested: string | undefined,
  parsed: GatewayChatRequest,
  owner: string | null,
): ChatTurnTarget {
  // A named session is read by the turn itself, first thing: an unknown one is a 404 from there
  // (toHttpError), before anything is stored or sent.
  if (requested) return { sessionId: ownedSessionId(owner, requested) };
  const { route, sessionRoute } = context.route;
  return {
    sessionId: newOwnedSessionId(owner, new Date()),
    newSession: {
      provider: sessionRoute?.provider ?? route.provider,
      model: route.model,
      baseUrl: sessionRoute ? sessionRoute.baseUrl : (route.baseUrl ?? null),
      api: route.api,
    },
    systemPrompt: parsed.systemTexts.length ? parsed.systemTexts.join('\n\n') : context.systemPrompt?.(),
  };
}

function completionId(): string {
  return `chatcmpl-${randomHex(12)}`;
}

function usageOf(outcome: GatewayTurnOutcome) {
  const usage = outcome.result.usage;
  return {
    prompt_tokens: usage.input_tokens,
    completion_tokens: usage.output_tokens,
    total_tokens: usage.total_tokens,
    completion_tokens_details: { reasoning_tokens: usage.reasoning_tokens },
  };
}

/**
 * The `chat.completion` body. `session_id` and `hermes.tool_calls` are extensions (clients
 * ignore unknown keys): the tools already ran server-side, so they are reported, not requested.
 */
function completionBody(context: GatewayTurnContext, outcome: GatewayTurnOutcome) {
  return {
    id: completionId(),
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model: context.route.route.model,
    session_id: outcome.result.sessionId,
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: outcome.content,
          ...(outcome.reasoning ? { reasoning_content: outcome.reasoning } : {}),
        },
        finish_reason: outcome.result.stoppedAtCap ? 'length' : 'stop',
        logprobs: null,
      },
    ],
    usage: usageOf(outcome),
    hermes: { tool_calls: outcome.result.toolCalls, iterations: outcome.result.iterations },
  };
}

/** `Server-Timing: provider;dur=MS`: time spent waiting on the provider, so callers (and bench/gateway) can tell the gateway's own share of a turn. */
function serverTiming(outcome: GatewayTurnOutcome): string {
  return `provider;dur=${outcome.providerMs.toFixed(2)}`;
}

/**
 * The SSE answer. It is returned once the turn stored its question (and took the session's
 * lease), or answered from the store: a turn refused before that — a reused `Idempotency-Key`
 * (422), the session busy in another process, a storage failure — is a plain error response with
 * its own status, never an error event inside a 200.
 */
async function streamingResponse(
  context: GatewayTurnContext,
  turn: ChatTurnTarget & { userText: string; turnKey: string | undefined },
  parsed: GatewayChatRequest,
  unlockQueue: () => void,
  request: ChatRequestSource,
): Promise<Response> {
  const { sessionId } = turn;
  const abort = clientAbort(request);
  const id = completionId();
  const created = Math.floor(Date.now() / 1000);
  const model = context.route.route.model;
  // The client went away: interrupt the turn (nothing partial is stored) and free the session.
  const body = request.eventBody(() => abort.abort());
  const send = (payload: unknown) =>
    body.write(`data: ${typeof payload === 'string' ? payload : JSON.stringify(payload)}\n\n`);
  const chunk = (
    delta: Record<string, unknown>,
    extra: Record<string, unknown> = {},
    finish: string | null = null,
  ) => ({
    id,
    object: 'chat.completion.chunk',
    created,
    model,
    choices: [{ index: 0, delta, finish_reason: finish, logprobs: null }],
    ...extra,
  });
  // A text delta is `chunk({ [key]: text })` as JSON.stringify writes it, from a template: the
  // chunk's fixed fields are written once per answer, not once per delta.
  const deltaHead = `data: ${JSON.stringify(chunk({})).slice(0, -'},"finish_reason":null,"logprobs":null}]}'.length)}`;
  const deltaTail = '},"finish_reason":null,"logprobs":null}]}\n\n';
  const delta = (key: 'content' | 'reasoning_content', text: string) =>
    body.write(`${deltaHead}"${key}":${JSON.stringify(text)}${deltaTail}`);
  const onEvent = (event: GatewayTurnEvent) => {
    if (event.type === 'reasoning') delta('reasoning_content', event.text);
    else if (event.type === 'content') delta('content', event.text);
    // A tool ran server-side: reported as an extension on an empty delta, never as tool_calls.
    else
      send(
        chunk(
          {},
          {
            hermes: {
              type: 'tool-result',
              id: event.id,
              name: event.name,
              is_error: event.isError,
              content: event.content,
            },
          },
        ),
      );
  };
  send(chunk({ role: 'assistant', content: '' }));
  let stored!: () => void;
  const started = new Promise<void>((resolve) => (stored = resolve));
  const running = runGatewayTurn(
    context,
    withFields(turn, { signal: abort.signal, onEvent, onUserStored: () => stored() }),
  );
  try {
    await Promise.race([started, running]);
  } catch (error) {
    unlockQueue();
    throw error;
  }
  void running
    .then((outcome) => {
      send(chunk({}, { session_id: outcome.result.sessionId }, outcome.result.stoppedAtCap ? 'length' : 'stop'));
      if (parsed.includeUsage)
        send({ id, object: 'chat.completion.chunk', created, model, choices: [], usage: usageOf(outcome) });
    })
    .catch((error: unknown) => {
      // Once the stream started the status is already 200: the failure is an error event,
      // which the openai SDK raises as an APIError.
      send(redactError(toHttpError(error), knownSecrets(undefined, process.env)).body());
    })
    .finally(() => {
      // The turn's last write released the lease before [DONE], so the client's next turn finds
      // the session free anywhere.
      unlockQueue();
      send('[DONE]');
      body.close();
    });
  return body.respond({
    'Content-Type': 'text/event-stream; charset=utf-8',
    'Cache-Control': 'no-cache',
    [SESSION_HEADER]: sessionId,
  });
}
