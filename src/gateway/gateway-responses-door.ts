import { errorResponse, SESSION_HEADER } from './gateway-chat.js';
import { clientAbort, frontDoorJson, readFrontDoorBody } from './gateway-front-door-body.js';
import { frontDoorHttpError } from './gateway-front-door-errors.js';
import { clientSessionId } from './gateway-front-door-session.js';
import { streamingAnswer } from './gateway-front-door-stream.js';
import { runFrontDoorTurn, type FrontDoorContext } from './gateway-front-door.js';
import type { ChatRequestSource } from './gateway-request-source.js';
import { responseIdentity, responsesResponseBody, responsesStreamWriter } from './gateway-responses-answer.js';
import { parseResponsesRequest } from './gateway-responses-request.js';

/**
 * `POST /v1/responses`: the OpenAI Responses front door (docs/gateway.md "Codex and the openai
 * SDK"). Never throws: every failure is OpenAI's error envelope with a status a client acts on
 * (gateway-front-door-errors.ts).
 */
export async function responsesResponse(
  source: ChatRequestSource,
  context: FrontDoorContext,
  onSession?: (sessionId: string) => void,
): Promise<Response> {
  let apiKey: string | undefined;
  try {
    const parsed = parseResponsesRequest(await readFrontDoorBody(source));
    const sessionId = clientSessionId((name) => source.header(name));
    if (sessionId) onSession?.(sessionId);
    const { route } = context.routes.choose(parsed.model);
    apiKey = route.apiKey;
    const abort = clientAbort(source);
    const identity = responseIdentity(route.route.model, parsed.customTools);
    const headers: Record<string, string> = sessionId ? { [SESSION_HEADER]: sessionId } : {};
    const request = {
      purpose: 'responses.reasoning.encrypted_content' as const,
      model: parsed.model,
      history: parsed.history,
      tools: parsed.tools,
      reasoning: parsed.reasoning,
      sessionId,
      signal: abort.signal,
    };
    const key = apiKey;
    if (parsed.stream) {
      return await streamingAnswer({
        run: (onDelta) => runFrontDoorTurn(context, request, onDelta),
        writer: (send) => responsesStreamWriter(send, identity),
        failure: (error) => errorResponse(frontDoorHttpError(error, key)),
        toError: (error) => frontDoorHttpError(error, key),
        abort: () => abort.abort(),
        headers,
      });
    }
    const answer = await runFrontDoorTurn(context, request);
    return frontDoorJson(responsesResponseBody(answer, identity), {
      ...headers,
      'Server-Timing': `provider;dur=${answer.providerMs.toFixed(2)}`,
    });
  } catch (error) {
    return errorResponse(frontDoorHttpError(error, apiKey));
  }
}
