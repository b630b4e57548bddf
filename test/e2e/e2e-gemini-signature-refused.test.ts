import { describe, expect, it } from 'vitest';
import { openSqliteSessionStore } from '../../src/storage/sqlite-session-store.js';
import { stateDbPath } from '../../src/storage/store-paths.js';
import { chatJson, useE2e } from '../support/e2e.js';
import { corruptStoredGeminiSignatures } from '../support/gemini-signatures.js';

/**
 * WIRE §8 on the native Gemini API through the real `hermes` binary: a stored thought signature
 * the server cannot verify is refused in Vertex AI's words ("Unable to submit request because
 * Thought signature is not valid.") or the Gemini API's ("Corrupted thought signature."); the
 * `gemini-signature-refused` row retries once without the signatures sent, Google's placeholder
 * on each step's first call, and the turn is answered.
 */

const e2e = useE2e();
const MODEL = 'gemini-3-pro-preview';

function route(provider: string, baseUrl: string): string[] {
  return ['--provider', provider, '--api', 'gemini', '--model', MODEL, '--base-url', baseUrl, '--api-key', 'x'];
}

describe('a refused Gemini thought signature (WIRE §8)', () => {
  it.each([
    ['vertex', 'google-vertex', 'Unable to submit request because Thought signature is not valid.'],
    ['ai-studio', 'google', 'Corrupted thought signature.'],
  ] as const)('%s: one 400 in its own words, then one retry with the placeholder', async (issuer, provider, text) => {
    const emulator = await e2e.gemini();
    const sandbox = e2e.sandbox();
    const baseUrl = issuer === 'vertex' ? emulator.vertexBaseUrl : emulator.baseUrl;
    const first = await chatJson(sandbox, ['-q', 'read the file notes.txt', ...route(provider, baseUrl)]);
    corruptStoredGeminiSignatures(sandbox.home, first.session_id);
    const before = emulator.requests.length;
    const resumed = await chatJson(sandbox, [
      '--resume',
      first.session_id,
      '-q',
      'thanks',
      ...route(provider, baseUrl),
    ]);
    expect(resumed.answer).toContain('You said: thanks');
    const attempts = emulator.requests.slice(before);
    expect(attempts.map((request) => request.status)).toEqual([400, 200]);
    expect(attempts[1]?.raw).toContain('skip_thought_signature_validator');
    const store = openSqliteSessionStore(stateDbPath(sandbox.home));
    const failed = (await store.listRequests(first.session_id)).filter((record) => record.status === 400);
    await store.close();
    expect(failed.map((record) => record.error ?? '').join('\n')).toContain(text);
  });
});
