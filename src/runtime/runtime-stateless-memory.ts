import type { JsonObject } from '../core/json.js';
import { readRejectedThinking, withRejectedThinking } from '../replay/replay-recovery.js';

/**
 * What stateless front-door turns remember between each other (docs/gateway.md "Sessions of
 * Claude Code and Codex"): the fingerprints of signed thinking a provider rejected (SPEC §9.4).
 * A client without a session header echoes the same rejected block on every later turn; without
 * this each of those turns would pay the 400 and the retry again. A fingerprint names the blob
 * itself (SHA-256 of its signature), so one conversation's rejection never drops another's valid
 * block. Kept in this process only, newest {@link MAX_FINGERPRINTS}: another gateway of a fleet
 * learns it with its own first retry.
 */
export class StatelessTurnMemory {
  /** Insertion order is age: the oldest entries go first once the bound is reached. */
  private readonly fingerprints = new Set<string>();

  /** The model config a stateless turn starts from: the remembered rejections, or nothing. */
  modelConfig(): JsonObject {
    return this.fingerprints.size === 0 ? {} : withRejectedThinking({}, [...this.fingerprints]);
  }

  /** Remembers the rejections in the model config a stateless turn ended with. */
  learn(modelConfig: JsonObject): void {
    for (const fingerprint of readRejectedThinking(modelConfig)) {
      this.fingerprints.delete(fingerprint);
      this.fingerprints.add(fingerprint);
    }
    for (const oldest of this.fingerprints) {
      if (this.fingerprints.size <= MAX_FINGERPRINTS) break;
      this.fingerprints.delete(oldest);
    }
  }
}

/** How many rejected fingerprints a gateway process keeps for stateless turns. */
export const MAX_FINGERPRINTS = 4096;
