import { HermesError } from '../../core/errors.js';
import type { PreparedRequest, TransportRequest } from '../shared/transport.js';

/** Builds the exact chat-completions request (URL, body, decisions) without I/O. Placeholder. */
export function prepareChatCompletions(_request: TransportRequest): PreparedRequest {
  throw new HermesError('chat-completions encoding is not implemented yet');
}
