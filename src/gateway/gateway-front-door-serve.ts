import type { JsonObject } from '../core/json.js';
import type { ReasoningOptions } from '../core/reasoning-options.js';
import type { ToolDefinition } from '../core/tool-definition.js';
import { SESSION_HEADER } from './gateway-chat.js';
import type { GatewayHttpError } from './gateway-errors.js';
import { frontDoorJson, readFrontDoorBody } from './gateway-front-door-body.js';
import { clientAbort } from './gateway-request-source.js';
import { frontDoorHttpError } from './gateway-front-door-errors.js';
import type { ClientHistory } from './gateway-front-door-handles.js';
import { clientSessionId } from './gateway-front-door-session.js';
import { streamingAnswer, type DoorStreamWriter } from './gateway-front-door-stream.js';
import { requestCaller } from './gateway-front-door-conversations.js';
import { runFrontDoorTurn, type FrontDoorAnswer, type FrontDoorContext } from './gateway-front-door.js';
import type { HandlePurpose } from './gateway-handle-seal.js';
import type { ChatRequestSource } from './gateway-request-source.js';
import type { GatewayRoute } from './gateway-types.js';
import { ownedSessionId } from '../storage/store-users.js';

/**
 * One front-door request from body to response, the part every door shares: read and parse the
 * body, the client's session header, the route its model picks, then the turn answered as JSON
 * or streamed (gateway-front-door-stream.ts). Never throws: a failure is the door's own error
 * envelope with a status a client acts on (gateway-front-door-errors.ts).
 */

/** What a door's parser returns. */
export interface ParsedFrontDoorRequest {
  model: string | undefined;
  stream: boolean;
  history: ClientHistory;
  tools: ToolDefinition[];
  reasoning: Partial<ReasoningOptions> | undefined;
  /** Hosted tools the client offered that the route is not given (said once per gateway). */
  omittedTools?: readonly string[];
}

/** A door's own parts: its parser, its answer shapes and its error envelope. */
export interface FrontDoorHandler<Parsed extends ParsedFrontDoorRequest> {
  /** The door's name (`messages`, `responses`, `chat`, `gemini`): it scopes the conversation index. */
  name: string;
  /** The field handles travel in (null: the door returns none). */
  purpose: HandlePurpose | null;
  /** Stream deltas as they come instead of reasoning first (see `AnswerSequencer`). */
  live?: boolean;
  parse(body: unknown): Parsed;
  /** Per-request answer shapes, made before the turn runs (ids, the input estimate). */
  answer(
    parsed: Parsed,
    route: GatewayRoute,
  ): {
    json(answer: FrontDoorAnswer): JsonObject;
    writer(send: (event: string | null, data: string) => void): DoorStreamWriter;
  };
  failure(error: GatewayHttpError): Response;
  /**
   * The session of a request that names none in a header (the Gemini door finds it by the
   * client's history, gateway-front-door-conversations.ts); undefined: the turn is stateless.
   */
  session?(parsed: Parsed): Promise<FrontDoorSession | undefined>;
}

/** A session a door found for a request by its history, and the caller it was found for. */
export interface FrontDoorSession {
  id: string;
  caller: string;
  /** Looked up already: no second lookup for a fork (gateway-front-door-conversations.ts). */
  matched: true;
  /** A new conversation's title: its session is created with it by the turn's mirror write. */
  title?: string | undefined;
}

/** Serves one request on `handler`'s door (`body` when the caller already parsed the JSON). */
export async function serveFrontDoor<Parsed extends ParsedFrontDoorRequest>(
  source: ChatRequestSource,
  context: FrontDoorContext,
  handler: FrontDoorHandler<Parsed>,
  onSession?: (sessionId: string) => void,
  body?: unknown,
): Promise<Response> {
  let apiKey: string | undefined;
  try {
    const parsed = handler.parse(body === undefined ? await readFrontDoorBody(source, context.bodies) : body);
    noteOmittedTools(context, parsed.omittedTools ?? []);
    // A user's session ids lie in its own namespace (SPEC §26.10): another user's id is another session.
    const named = clientSessionId((name) => source.header(name));
    const found = named === undefined ? await handler.session?.(parsed) : undefined;
    const sessionId = named === undefined ? found?.id : ownedSessionId(source.owner, named);
    if (sessionId) onSession?.(sessionId);
    const { route } = context.routes.choose(parsed.model);
    apiKey = route.apiKey;
    const shapes = handler.answer(parsed, route);
    const abort = clientAbort(source);
    const headers: Record<string, string> = sessionId ? { [SESSION_HEADER]: sessionId } : {};
    const request = {
      purpose: handler.purpose,
      model: parsed.model,
      history: parsed.history,
      tools: parsed.tools,
      reasoning: parsed.reasoning,
      sessionId,
      signal: abort.signal,
      // Every mirrored answer is indexed, so a copy of the conversation under a new id finds it.
      conversation: found
        ? { door: handler.name, caller: found.caller, lookedUp: true, title: found.title }
        : named === undefined
          ? undefined
          : { door: handler.name, caller: requestCaller(source, context.keyRequired), lookedUp: false },
    };
    const key = apiKey;
    if (parsed.stream) {
      return await streamingAnswer({
        run: (onDelta) => runFrontDoorTurn(context, request, onDelta),
        writer: (send) => shapes.writer(send),
        failure: (error) => handler.failure(frontDoorHttpError(error, key)),
        toError: (error) => frontDoorHttpError(error, key),
        abort: () => abort.abort(),
        eventBody: (onCancel) => source.eventBody(onCancel),
        headers,
        live: handler.live === true,
        holdText: (parsed.reasoning?.enabled ?? context.gateway.turn.reasoning.enabled) !== false,
      });
    }
    const answer = await runFrontDoorTurn(context, request);
    return frontDoorJson(shapes.json(answer), {
      ...headers,
      'Server-Timing': `provider;dur=${answer.providerMs.toFixed(2)}`,
    });
  } catch (error) {
    return handler.failure(frontDoorHttpError(error, apiKey));
  }
}

/**
 * Logs, once per gateway and list, the hosted tools a client offers that the route is not given
 * (Codex sends `web_search` on every request): the model answers without them.
 */
function noteOmittedTools(context: FrontDoorContext, omitted: readonly string[]): void {
  if (omitted.length === 0) return;
  const list = omitted.join(', ');
  if (context.notices.has(list) || context.notices.size >= 256) return;
  context.notices.add(list);
  context.gateway.logger.info(
    { tools: omitted },
    `hosted tools left out of upstream requests: ${list} (they run on the client's provider only; the model answers without them)`,
  );
}
