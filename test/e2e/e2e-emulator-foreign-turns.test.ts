import { describe, expect, it } from 'vitest';
import { chatJson, useE2e } from '../support/e2e.js';

/**
 * SPEC §26.8: an emulator judges only the reasoning it issued. After a switch from the DeepSeek
 * emulator to the Anthropic one, the DeepSeek turns (their reasoning demoted to text on a signed
 * route, a designed decision) are counted apart as foreign, never as `broken`.
 */

const e2e = useE2e();

describe('the continuity sentence after a switch of emulator (SPEC §26.8)', () => {
  it('DeepSeek turns on the Anthropic emulator are foreign, not missing; back on DeepSeek every turn is intact', async () => {
    const sandbox = e2e.sandbox();
    const deepseek = ['--provider', 'emulator:deepseek'];
    const first = await chatJson(sandbox, ['-q', 'read the file notes.txt', ...deepseek]);
    await chatJson(sandbox, ['--resume', first.session_id, '-q', 'and then?', ...deepseek]);

    const anthropic = await chatJson(sandbox, [
      '--resume',
      first.session_id,
      '-q',
      'read the file notes.txt',
      '--provider',
      'emulator:anthropic',
    ]);
    expect(anthropic.answer).not.toContain('broken');
    // Its own tool-call turn of this request came back intact; the three DeepSeek turns are apart.
    expect(anthropic.answer).toContain(
      'Reasoning continuity: intact (1/1). Foreign turns: 3 (not issued by this model; not counted).',
    );

    const back = await chatJson(sandbox, ['--resume', first.session_id, '-q', 'and now?', ...deepseek]);
    expect(back.answer).toContain('Reasoning continuity: intact (');
    expect(back.answer).not.toContain('broken');
  });
});
