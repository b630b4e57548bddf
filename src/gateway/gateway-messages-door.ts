import { SESSION_HEADER } from './gateway-chat.js';
import { clientAbort, frontDoorJson, readFrontDoorBody } from './gateway-front-door-body.js';
import { anthropicErrorResponse, frontDoorHttpError } from './gateway-front-door-errors.js';
import { clientSessionId } from './gateway-front-door-session.js';
import { streamingAnswer } from './gateway-front-door-stream.js';
import { estimateFrontDoorTokens, runFrontDoorTurn, type FrontDoorContext } from './gateway-front-door.js';
import { messageId, messagesResponseBody, messagesStreamWriter } from './gateway-messages-answer.js';
import { parseMessagesRequest } from './gateway-messages-request.js';
import type { ChatRequestSource } from './gateway-request-source.js';

/**
 * `POST /v1/messages` and `POST /v1/messages/count_tokens`: the Anthropic Messages front door
 * (docs/gateway.md "Claude Code and the Anthropic SDK"). Never throws: every failure is
 * Anthropic's error envelope with a status a client acts on (gateway-front-door-errors.ts).
 */

/** Handles one Messages request. */
export async function messagesResponse(
  source: ChatRequestSource,
  context: FrontDoorContext,
  onSession?: (sessionId: string) => void,
): Promise<Response> {
  let apiKey: string | undefined;
  try {
    const parsed = parseMessagesRequest(await readFrontDoorBody(source));
    const sessionId = clientSessionId((name) => source.header(name));
    if (sessionId) onSession?.(sessionId);
    apiKey = context.routes.choose(parsed.model).route.apiKey;
    // Priced before the handles open (opaque bytes cost nothing, SPEC §15).
    const estimatedInput = estimateFrontDoorTokens(context, parsed.model, parsed.history, parsed.tools);
    const abort = clientAbort(source);
    const id = messageId();
    const headers: Record<string, string> = sessionId ? { [SESSION_HEADER]: sessionId } : {};
    const request = {
      purpose: 'messages.thinking.signature' as const,
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
        writer: (send) =>
          messagesStreamWriter(send, {
            id,
            model: context.routes.choose(parsed.model).route.route.model,
            estimatedInput,
          }),
        failure: (error) => anthropicErrorResponse(frontDoorHttpError(error, key)),
        toError: (error) => frontDoorHttpError(error, key),
        abort: () => abort.abort(),
        headers,
      });
    }
    const answer = await runFrontDoorTurn(context, request);
    return frontDoorJson(messagesResponseBody(answer, id, estimatedInput), {
      ...headers,
      'Server-Timing': `provider;dur=${answer.providerMs.toFixed(2)}`,
    });
  } catch (error) {
    return anthropicErrorResponse(frontDoorHttpError(error, apiKey));
  }
}

/** `count_tokens`: the replay token estimate (SPEC §15) of the request on the route its model picks. */
export async function countTokensResponse(source: ChatRequestSource, context: FrontDoorContext): Promise<Response> {
  try {
    const parsed = parseMessagesRequest(await readFrontDoorBody(source));
    return frontDoorJson({
      input_tokens: estimateFrontDoorTokens(context, parsed.model, parsed.history, parsed.tools),
    });
  } catch (error) {
    return anthropicErrorResponse(frontDoorHttpError(error, undefined));
  }
}
