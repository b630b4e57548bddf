import type { SessionStore } from '../storage/session-store.js';
import type { FreshStart, ProbeEnvironment } from './probe-types.js';
import { runProbeTurn } from './probe-way-cli.js';

/**
 * A fresh start inside this process: the store opened anew (nothing read before is reused: no
 * warm history, no cached request bytes, a new gateway for the doors), then the question asked
 * by a new runtime turn. `hermes doctor` asks the CLI's question from a new process instead
 * (`doctor-continuity-resume.ts`); this serves the doors there and every way in of the matrix.
 */
export function inProcessFreshStart(
  openStore: () => SessionStore,
  environment: Omit<ProbeEnvironment, 'store' | 'freshStart' | 'acpAgents'>,
): FreshStart {
  return {
    async askInSession(sessionId, text) {
      const store = openStore();
      try {
        return await runProbeTurn({ ...environment, store }, sessionId, text);
      } finally {
        await store.close();
      }
    },
    openStore: async () => openStore(),
  };
}
