import { EventStream } from '../../core/event-stream.js';
import { knownSecrets, redactEvent } from '../../core/redact.js';

/**
 * The event stream a transport's `send()` returns: every event leaves through
 * {@link redactEvent} with the request's key and the environment's credentials.
 */
export function openTransportStream(request: { apiKey?: string | undefined }): EventStream {
  let secrets: string[] | undefined;
  return new EventStream({
    filter: (event) => {
      if (event.type !== 'error' && event.type !== 'retry') return event;
      secrets ??= knownSecrets(request.apiKey, process.env);
      return redactEvent(event, secrets);
    },
  });
}
