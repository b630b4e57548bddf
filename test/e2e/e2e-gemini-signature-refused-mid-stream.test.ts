import { describe, expect, it } from 'vitest';
import { chatJson, readLog, useE2e } from '../support/e2e.js';
import { corruptStoredGeminiSignatures } from '../support/gemini-signatures.js';

/**
 * WIRE §8 on the native Gemini API through the real `hermes` binary: the refusal of a thought
 * signature Google cannot verify ("Corrupted thought signature.") can come after the stream began
 * — `200`, then the error as the first event, before any content. Nothing of the answer was shown,
 * so the turn recovers as from the `400`: one retry without the signatures sent (Google's
 * placeholder on each step's first call), the recovery explained in the log.
 */

const e2e = useE2e();
const MODEL = 'gemini-3-pro-preview';

function route(baseUrl: string): string[] {
  return ['--provider', 'google', '--api', 'gemini', '--model', MODEL, '--base-url', baseUrl, '--api-key', 'x'];
}

describe('a thought signature refused in the middle of a Gemini stream (WIRE §8)', () => {
  it('before any content: one retry without the refused signatures, explained, and the turn is answered', async () => {
    const emulator = await e2e.gemini({ signatureRefusalMidStream: true });
    const sandbox = e2e.sandbox();
    const first = await chatJson(sandbox, ['-q', 'read the file notes.txt', ...route(emulator.baseUrl)]);
    corruptStoredGeminiSignatures(sandbox.home, first.session_id);
    const before = emulator.requests.length;
    const resumed = await chatJson(sandbox, ['--resume', first.session_id, '-q', 'thanks', ...route(emulator.baseUrl)]);
    expect(resumed.answer).toContain('You said: thanks');
    const attempts = emulator.requests.slice(before);
    // Both answers were 200: the refusal came inside the first stream.
    expect(attempts.map((request) => request.status)).toEqual([200, 200]);
    expect(attempts[0]?.raw).not.toContain('skip_thought_signature_validator');
    expect(attempts[1]?.raw).toContain('skip_thought_signature_validator');
    const log = readLog(sandbox.home);
    expect(log).toContain('refused in the middle of the stream before any content was shown');
    expect(log).toContain('gemini-signature-refused');
  });
});
