import type { ServerResponse } from 'node:http';
import type { EmulatorHttpRequest } from './emulator-http-server.js';
import { sendJson } from './emulator-http-server.js';
import type { FaultQueue } from './emulator-faults.js';
import { parseFaults } from './emulator-faults.js';
import { parseJsonBody } from './emulator-request-log.js';
import type { ReceivedRequest } from './emulator-request-log.js';

/**
 * Control endpoints every emulator exposes for CLI users (tests use the in-process API instead):
 * - `GET /_emulator/requests` — the request log as JSON;
 * - `DELETE /_emulator/requests` — clears it;
 * - `POST /_emulator/faults` — queues one fault or an array of faults.
 */

/** Path prefix of the control endpoints (never a provider path). */
export const CONTROL_PREFIX = '/_emulator/';

/** What the control endpoints act on. */
export interface ControlState {
  requests: ReceivedRequest[];
  faults: FaultQueue;
}

/** Answers a control request; returns false when the path is not a control endpoint. */
export function handleControlRequest(
  request: EmulatorHttpRequest,
  response: ServerResponse,
  state: ControlState,
): boolean {
  if (!request.path.startsWith(CONTROL_PREFIX)) return false;
  const route = `${request.method} ${request.path}`;
  if (route === 'GET /_emulator/requests') {
    sendJson(response, 200, state.requests);
  } else if (route === 'DELETE /_emulator/requests') {
    state.requests.length = 0;
    sendJson(response, 200, { cleared: true });
  } else if (route === 'POST /_emulator/faults') {
    try {
      const faults = parseFaults(parseJsonBody(request.raw));
      for (const fault of faults) state.faults.add(fault);
      sendJson(response, 200, { queued: faults.length, pending: state.faults.pending });
    } catch (error) {
      sendJson(response, 400, { error: { message: error instanceof Error ? error.message : String(error) } });
    }
  } else {
    sendJson(response, 404, { error: { message: `unknown emulator control endpoint: ${route}` } });
  }
  return true;
}
