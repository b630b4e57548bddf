import { describe, expect, it } from 'vitest';
import { chatJson, useE2e } from '../support/e2e.js';

/**
 * SPEC §26.2 through the CLI: a session started on DeepSeek resumed onto the OpenAI-compatible
 * Gemini and Copilot routes (the in-process emulators) goes on with tool loops: no turn is stuck
 * on a carrier those routes require.
 */

const e2e = useE2e();

describe('hermes chat --resume of a DeepSeek session onto routes that require a carrier', () => {
  it.each(['gemini-openai', 'copilot'])('onto %s: tool loops continue', async (persona) => {
    const sandbox = e2e.sandbox();
    const first = await chatJson(sandbox, ['-q', 'read the file notes.txt', '--provider', 'emulator:deepseek']);
    expect(first.answer).toContain('alpha beta');
    const resumed = await chatJson(sandbox, [
      '--resume',
      first.session_id,
      '-q',
      'read the file notes.txt',
      '--provider',
      `emulator:${persona}`,
    ]);
    expect(resumed.session_id).toBe(first.session_id);
    expect(resumed.tool_calls.map((call) => call.name)).toEqual(['read_file']);
    expect(resumed.answer).toContain('The tool returned: alpha beta');
    const again = await chatJson(sandbox, [
      '--resume',
      first.session_id,
      '-q',
      'thanks',
      '--provider',
      `emulator:${persona}`,
    ]);
    expect(again.answer).toContain('You said: thanks');
  });
});
