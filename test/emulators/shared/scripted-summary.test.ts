import { describe, expect, it } from 'vitest';
import { scriptedSummary } from '../../../src/emulators/shared/scripted-summary.js';

describe('scriptedSummary', () => {
  it('answers a transcript request and counts the sealed reasoning texts every message quotes', () => {
    const answer = scriptedSummary([
      { role: 'system', text: 'Summarise. [nonce:0123456789ab]' },
      { role: 'assistant', text: 'earlier [nonce:aaaaaaaaaaaa] and [nonce:bbbbbbbbbbbb]' },
      { role: 'user', text: '<transcript>\nuser: hello\nassistant: hi\n</transcript>' },
    ]);
    expect(answer?.content).toContain('a transcript of 2 messages');
    expect(answer?.content).toContain('Earlier reasoning quoted in the request: 3 sealed reasoning texts.');
  });

  it('leaves any other request to the script, however much reasoning it quotes', () => {
    const messages = Array.from({ length: 1000 }, (_, index) => ({
      role: index % 2 ? ('assistant' as const) : ('user' as const),
      text: `turn ${index} [nonce:0123456789ab]`,
    }));
    expect(scriptedSummary(messages)).toBeNull();
  });
});
