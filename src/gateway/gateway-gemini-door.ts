import { knownSecrets, redactError } from '../core/redact.js';
import { echoed, GatewayHttpError } from './gateway-errors.js';
import { frontDoorJson, readFrontDoorBody } from './gateway-front-door-body.js';
import { frontDoorHttpError } from './gateway-front-door-errors.js';
import { serveFrontDoor, type FrontDoorHandler } from './gateway-front-door-serve.js';
import { estimateFrontDoorTokens, type FrontDoorContext } from './gateway-front-door.js';
import { geminiResponseBody, geminiResponseId, geminiStreamWriter, googleErrorBody } from './gateway-gemini-answer.js';
import { parseGeminiRequest, type GeminiDoorRequest } from './gateway-gemini-request.js';
import {
  conversationTitle,
  findConversation,
  requestCaller,
  type FoundConversation,
} from './gateway-front-door-conversations.js';
import type { ChatRequestSource } from './gateway-request-source.js';

/**
 * The Gemini front door (docs/gateway.md "Gemini CLI and @google/genai"), on the pipeline the
 * other doors share: `POST /v1beta/models/{model}:generateContent`, `:streamGenerateContent`
 * (`?alt=sse` for server-sent events, else one JSON array of chunks) and `:countTokens`, and
 * `GET /v1beta/models` (+ `/{model}`). The model in the path picks the route
 * (gateway-model-routes.ts); the answer's handle rides in `thoughtSignature`; a request that names
 * no session continues the conversation its history matches (gateway-front-door-conversations.ts).
 * Failures are answered in Google's envelope (`{"error": {"code", "message", "status"}}`).
 */

/** A Gemini model action from the path: `gemini-3-pro-preview:streamGenerateContent`. */
export interface GeminiTarget {
  model: string;
  method: 'generateContent' | 'streamGenerateContent' | 'countTokens';
}

/** How the door treats callers (from the gateway's options). */
export interface GeminiDoorOptions {
  /** The gateway requires a key: each caller's conversations are its own (gateway-front-door-conversations.ts). */
  keyRequired: boolean;
}

const METHODS = new Set<GeminiTarget['method']>(['generateContent', 'streamGenerateContent', 'countTokens']);

/** Splits `{model}:{method}` (the model may hold colons itself: `deepseek:deepseek-v4-flash`). */
export function parseGeminiTarget(target: string): GeminiTarget | null {
  const colon = target.lastIndexOf(':');
  const model = target.slice(0, colon).replace(/^models\//, '');
  const method = target.slice(colon + 1) as GeminiTarget['method'];
  if (colon <= 0 || model === '' || !METHODS.has(method)) return null;
  return { model, method };
}

/** A failure in Google's envelope. */
export function geminiErrorResponse(error: GatewayHttpError, headers: Record<string, string> = {}): Response {
  const safe = redactError(error, knownSecrets(undefined, process.env));
  return new Response(JSON.stringify(googleErrorBody(safe)), {
    status: safe.status,
    headers: { 'content-type': 'application/json; charset=UTF-8', ...headers },
  });
}

/** The door's parts for one request (the shared flow is gateway-front-door-serve.ts). */
function geminiDoor(
  context: FrontDoorContext,
  target: GeminiTarget,
  caller: string,
  owner: string | null,
): FrontDoorHandler<GeminiDoorRequest> {
  const index = { store: context.gateway.store, logger: context.gateway.logger };
  return {
    name: 'gemini',
    purpose: 'gemini.part.thoughtSignature',
    parse: (body) => parseGeminiRequest(body, { model: target.model, stream: target.method !== 'generateContent' }),
    answer(parsed) {
      // Priced before the handles open (opaque bytes cost nothing, SPEC §15).
      const estimatedInput = estimateFrontDoorTokens(context, parsed.model, parsed.history, parsed.tools);
      const identity = {
        modelVersion: target.model,
        responseId: geminiResponseId(),
        includeThoughts: parsed.includeThoughts,
        estimatedInput,
      };
      return {
        json: (answer) => geminiResponseBody(answer, identity),
        writer: (send) => geminiStreamWriter(send, identity),
      };
    },
    failure: (error) => geminiErrorResponse(error),
    async session(parsed) {
      if (parsed.sideRequest) return undefined;
      let found: FoundConversation;
      try {
        found = await findConversation(index, parsed.history.messages, caller, owner);
      } catch (error) {
        // The client holds the history: a store that cannot be read makes the turn stateless.
        index.logger.warn(
          { err: (error as Error).message },
          `gemini door: no conversation lookup (the turn runs stateless): ${(error as Error).message}`,
        );
        return undefined;
      }
      return { id: found.id, caller, matched: true, ...(found.matched ? {} : { title: conversationTitle(parsed) }) };
    },
  };
}

/** `:generateContent` and `:streamGenerateContent` (`alt`: the `alt` query parameter). */
async function geminiContentResponse(
  source: ChatRequestSource,
  context: FrontDoorContext,
  request: { target: GeminiTarget; alt: string | undefined; options: GeminiDoorOptions },
  onSession?: (sessionId: string) => void,
): Promise<Response> {
  const { target } = request;
  // A gateway user's conversations are found under its name and only among its own sessions (SPEC §26.10).
  const caller = requestCaller(source, request.options.keyRequired);
  if (target.method !== 'streamGenerateContent' || request.alt === 'sse') {
    return serveFrontDoor(source, context, geminiDoor(context, target, caller, source.owner), onSession);
  }
  // Without `alt=sse` Google streams one JSON array of chunks: the whole answer as one chunk.
  const answered = await serveFrontDoor(
    source,
    context,
    geminiDoor(context, { ...target, method: 'generateContent' }, caller, source.owner),
    onSession,
  );
  if (answered.status !== 200) return answered;
  return new Response(`[${await answered.text()}]`, { status: 200, headers: answered.headers });
}

/** `:countTokens`: the replay token estimate (SPEC §15) on the route the model picks. */
async function geminiCountTokensResponse(
  source: ChatRequestSource,
  context: FrontDoorContext,
  target: GeminiTarget,
): Promise<Response> {
  try {
    const parsed = parseGeminiRequest(await readFrontDoorBody(source), { model: target.model, stream: false });
    return frontDoorJson({
      totalTokens: estimateFrontDoorTokens(context, parsed.model, parsed.history, parsed.tools),
    });
  } catch (error) {
    return geminiErrorResponse(frontDoorHttpError(error, undefined));
  }
}

/** `GET /v1beta/models`: the names a client may use, in Gemini's `Model` shape. */
export function geminiModelsResponse(context: FrontDoorContext): Response {
  return frontDoorJson({ models: context.routes.names().map(modelEntry) });
}

/** `GET /v1beta/models/{model}`: any name is served (an unknown one by the gateway's route). */
export function geminiModelResponse(name: string): Response {
  return frontDoorJson(modelEntry(name.replace(/^models\//, '')));
}

function modelEntry(name: string) {
  return {
    name: `models/${name}`,
    baseModelId: name,
    version: '1',
    displayName: name,
    description: 'served by hermes gateway',
    inputTokenLimit: 1_048_576,
    outputTokenLimit: 65_536,
    supportedGenerationMethods: ['generateContent', 'streamGenerateContent', 'countTokens'],
    thinking: true,
  };
}

/** `POST /v1beta/models/{target}` (`alt`: the `alt` query parameter): the action the target names. */
export async function geminiActionResponse(
  source: ChatRequestSource,
  context: FrontDoorContext,
  request: { target: string; alt: string | undefined; options: GeminiDoorOptions },
  onSession?: (sessionId: string) => void,
): Promise<Response> {
  const target = parseGeminiTarget(request.target);
  if (!target) {
    return geminiErrorResponse(
      new GatewayHttpError(
        404,
        `"${echoed(request.target)}" is not a model action: use models/{model}:generateContent, :streamGenerateContent or :countTokens`,
        'not_found_error',
        'unknown_route',
      ),
    );
  }
  if (target.method === 'countTokens') return geminiCountTokensResponse(source, context, target);
  return geminiContentResponse(source, context, { target, alt: request.alt, options: request.options }, onSession);
}

/** Any other path under `/v1beta`: Google's 404. */
export function geminiNotFound(method: string, path: string): Response {
  return geminiErrorResponse(
    new GatewayHttpError(404, `no route ${method} ${echoed(path)}`, 'not_found_error', 'unknown_route'),
  );
}

/**
 * Google's key (`x-goog-api-key`, or `?key=`) as the gateway reads keys: the request source
 * with it in `x-api-key`. A request that already sends `x-api-key` keeps it.
 */
export function withGoogleKey(source: ChatRequestSource, queryKey: string | undefined): ChatRequestSource {
  const key = source.header('x-goog-api-key') ?? queryKey ?? null;
  if (!key || source.header('x-api-key') !== null) return source;
  return new GoogleKeyRequestSource(source, key);
}

/** The key a request presented (Google's, `x-api-key`, or a bearer). */
/** A source whose `x-api-key` is the Google key the client sent (a class: no hidden class per request). */
class GoogleKeyRequestSource implements ChatRequestSource {
  owner: string | null;

  constructor(
    private readonly source: ChatRequestSource,
    private readonly key: string,
  ) {
    this.owner = source.owner;
  }

  header(name: string): string | null {
    return name.toLowerCase() === 'x-api-key' ? this.key : this.source.header(name);
  }

  get signal(): AbortSignal {
    return this.source.signal;
  }

  turnAbort(): AbortController {
    return this.source.turnAbort();
  }

  text(maxBytes: number): Promise<string | null> {
    return this.source.text(maxBytes);
  }

  bytes(maxBytes: number): Promise<Buffer | null> {
    return this.source.bytes(maxBytes);
  }

  eventBody(onCancel: () => void): ReturnType<ChatRequestSource['eventBody']> {
    return this.source.eventBody(onCancel);
  }
}
