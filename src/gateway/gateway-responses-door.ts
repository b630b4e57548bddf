import { errorResponse } from './gateway-chat.js';
import { serveFrontDoor, type FrontDoorHandler } from './gateway-front-door-serve.js';
import type { FrontDoorContext } from './gateway-front-door.js';
import type { ChatRequestSource } from './gateway-request-source.js';
import { responseIdentity, responsesResponseBody, responsesStreamWriter } from './gateway-responses-answer.js';
import { parseResponsesRequest, type ResponsesRequest } from './gateway-responses-request.js';

/**
 * `POST /v1/responses`: the OpenAI Responses front door (docs/gateway.md "Codex"), failures in
 * OpenAI's envelope.
 */
const RESPONSES_DOOR: FrontDoorHandler<ResponsesRequest> = {
  name: 'responses',
  purpose: 'responses.reasoning.encrypted_content',
  parse: parseResponsesRequest,
  answer(parsed, route) {
    // The answer names the model the client asked for, as Messages does (gateway-messages-answer.ts).
    const identity = responseIdentity(parsed.model?.trim() || route.route.model, parsed.toolNames);
    return {
      json: (answer) => responsesResponseBody(answer, identity),
      writer: (send) => responsesStreamWriter(send, identity),
    };
  },
  failure: (error) => errorResponse(error),
};

/** Handles one Responses request. */
export function responsesResponse(
  source: ChatRequestSource,
  context: FrontDoorContext,
  onSession?: (sessionId: string) => void,
): Promise<Response> {
  return serveFrontDoor(source, context, RESPONSES_DOOR, onSession);
}
