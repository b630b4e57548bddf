import { UsageError } from '../core/errors.js';
import { GEMINI_DOOR } from './probe-door-gemini.js';
import { CHAT_DOOR, MESSAGES_DOOR, RESPONSES_DOOR } from './probe-door-protocols.js';
import type { ProbeWayIn } from './probe-types.js';
import { ACP_WAY_IN } from './probe-way-acp.js';
import { CLI_WAY_IN } from './probe-way-cli.js';
import { doorWayIn } from './probe-way-doors.js';

/**
 * Every way into Hermes the continuity probe knows, in the order reports and
 * `docs/conformance.md` list them. A new door is one more entry: a `DoorProtocol`
 * (`probe-door-protocols.ts`) wrapped by `doorWayIn`, or a `ProbeWayIn` of its own for a way in
 * that is not an HTTP door (the CLI, ACP).
 */
export const PROBE_WAYS_IN: readonly ProbeWayIn[] = [
  CLI_WAY_IN,
  doorWayIn(CHAT_DOOR),
  doorWayIn(MESSAGES_DOOR),
  doorWayIn(RESPONSES_DOOR),
  doorWayIn(GEMINI_DOOR),
  ACP_WAY_IN,
];

/** The way in named `name`; a usage error lists the names. */
export function probeWayIn(name: string): ProbeWayIn {
  const way = PROBE_WAYS_IN.find((candidate) => candidate.name === name);
  if (!way) {
    throw new UsageError(
      `unknown way in "${name}" (expected one of: ${PROBE_WAYS_IN.map((candidate) => candidate.name).join(', ')})`,
    );
  }
  return way;
}
