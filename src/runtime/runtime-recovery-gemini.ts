import { GEMINI_PLACEHOLDER_SIGNATURE, withoutRefusedSignatures } from '../replay/replay-recovery.js';
import type { RecoveryRow } from './runtime-recovery-types.js';

/** WIRE §8: the Gemini API's and Vertex AI's refusal of a thought signature they cannot verify. */
const REFUSED_SIGNATURE = /Corrupted thought signature|Thought signature is not valid/i;

/**
 * WIRE §8 on the native Gemini API (AI Studio "Corrupted thought signature.", Vertex "Unable to
 * submit request because Thought signature is not valid."): the retry leaves out every signature
 * sent and puts Google's placeholder on the first function call of each model turn (SPEC §26.2).
 * Nothing is persisted (the next turn tries its stored signatures again); a body that carried no
 * real signature — placeholders only — surfaces the error.
 */
export const GEMINI_SIGNATURE_REFUSED: RecoveryRow = {
  name: 'gemini-signature-refused',
  classify: (c) => c.status === 400 && REFUSED_SIGNATURE.test(c.body),
  async learn(c) {
    const repair = withoutRefusedSignatures(c.prepared.body, GEMINI_PLACEHOLDER_SIGNATURE);
    if (repair.removed === 0) return null;
    return {
      config: c.config,
      rejected: [...c.rejected],
      stripAllThinking: false,
      rewriteBody: (body) => withoutRefusedSignatures(body, GEMINI_PLACEHOLDER_SIGNATURE).body,
      log: `thought signature refused on ${c.prepared.routeKey}: retrying once without the ${repair.removed} signature(s) sent, Google's placeholder on each step's first call`,
      learned: { kind: 'thinking-repaired', fields: ['thoughtSignature'] },
    };
  },
};
