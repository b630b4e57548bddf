import { frontDoorJson, readFrontDoorBody } from './gateway-front-door-body.js';
import { anthropicErrorResponse, frontDoorHttpError } from './gateway-front-door-errors.js';
import { serveFrontDoor, type FrontDoorHandler } from './gateway-front-door-serve.js';
import { estimateFrontDoorTokens, type FrontDoorContext } from './gateway-front-door.js';
import { messageId, messagesResponseBody, messagesStreamWriter } from './gateway-messages-answer.js';
import { parseMessagesRequest, type MessagesRequest } from './gateway-messages-request.js';
import type { ChatRequestSource } from './gateway-request-source.js';

/**
 * `POST /v1/messages` and `POST /v1/messages/count_tokens`: the Anthropic Messages front door
 * (docs/gateway.md "Claude Code and the Anthropic SDK"), failures in Anthropic's envelope.
 */

/** The Messages door's parts (the shared flow is gateway-front-door-serve.ts). */
function messagesDoor(context: FrontDoorContext): FrontDoorHandler<MessagesRequest> {
  return {
    name: 'messages',
    purpose: 'messages.thinking.signature',
    parse: parseMessagesRequest,
    answer(parsed, route) {
      // Priced before the handles open (opaque bytes cost nothing, SPEC §15).
      const estimatedInput = estimateFrontDoorTokens(context, parsed.model, parsed.history, parsed.tools);
      // The answer names the model the client asked for (see messagesResponseBody).
      const identity = { id: messageId(), model: parsed.model?.trim() || route.route.model };
      return {
        json: (answer) => messagesResponseBody(answer, identity, estimatedInput),
        writer: (send) => messagesStreamWriter(send, { ...identity, estimatedInput }),
      };
    },
    failure: (error) => anthropicErrorResponse(error),
  };
}

/** Handles one Messages request. */
export function messagesResponse(
  source: ChatRequestSource,
  context: FrontDoorContext,
  onSession?: (sessionId: string) => void,
): Promise<Response> {
  return serveFrontDoor(source, context, messagesDoor(context), onSession);
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
