import type { InProcessEmulator } from '../../src/cli/cli-emulator-start.js';
import { silentLogger } from '../../src/logging/logger.js';
import type { ProbeEnvironment } from '../../src/probe/probe-types.js';

/**
 * What a continuity probe on an in-process emulator needs besides its store, fresh start and ACP
 * agents, as the conformance matrix sets it up: the emulator's route, stored as
 * `emulator:PERSONA`, no settings, a silent log.
 */
export function emulatorProbeBase(
  emulator: InProcessEmulator,
  workspace: string,
): Omit<ProbeEnvironment, 'store' | 'freshStart' | 'acpAgents'> {
  return {
    route: {
      route: emulator.route,
      apiKey: emulator.apiKey,
      connectTo: emulator.connectTo.size > 0 ? emulator.connectTo : undefined,
      sessionRoute: { provider: `emulator:${emulator.persona}`, baseUrl: null },
    },
    settings: {},
    workspace,
    logger: silentLogger(),
  };
}
