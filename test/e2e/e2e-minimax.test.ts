/**
 * SPEC §24.2 end to end through the real `hermes` binary: a session whose tool loop ran on an
 * OpenAI-compatible route (DeepSeek persona) moves to MiniMax's Anthropic-compatible API
 * (`https://api.minimax.io/anthropic`, reached on the Anthropic emulator through
 * HERMES_CONNECT_TO). The foreign reasoning travels as real unsigned `thinking` blocks, the
 * MiniMax-M3 thinking parameter is exactly adaptive / disabled, and MiniMax's own signed thinking
 * comes back on the next turn.
 */
import { describe, expect, it } from 'vitest';
import { parseJson, runHermes, useE2e, chatJson } from '../support/e2e.js';

const e2e = useE2e();

type Block = Record<string, unknown>;

function assistantBlocks(body: unknown): Block[][] {
  const messages = (body as { messages?: { role: string; content: unknown }[] }).messages ?? [];
  return messages
    .filter((message) => message.role === 'assistant')
    .map((message) => (Array.isArray(message.content) ? (message.content as Block[]) : []));
}

const MINIMAX = [
  '--provider',
  'minimax',
  '--model',
  'MiniMax-M3',
  '--base-url',
  'https://api.minimax.io/anthropic',
  '--api',
  'anthropic_messages',
  '--api-key',
  'mm-key',
];

describe('SPEC §24.2 MiniMax through the CLI', () => {
  it('foreign reasoning replays as unsigned thinking blocks, MiniMax-M3 gets adaptive / disabled, its own signatures return', async () => {
    const emulator = await e2e.anthropic();
    const env = { HERMES_CONNECT_TO: `https://api.minimax.io=${emulator.baseUrl}` };
    const sandbox = e2e.sandbox();
    const first = await chatJson(sandbox, ['-q', 'read the file notes.txt', '--provider', 'emulator:deepseek']);

    const moved = await runHermes(
      ['chat', '--resume', first.session_id, '-q', 'thanks', '--json', ...MINIMAX],
      sandbox,
      env,
    );
    expect(moved.code, moved.stderr).toBe(0);
    // The scripted model confirms both earlier turns' reasoning reached it intact.
    expect(parseJson<{ answer: string }>(moved).answer).toContain('Reasoning continuity: intact (2/2).');
    const request = emulator.requests[0];
    expect(request?.path).toBe('/anthropic/v1/messages');
    expect((request?.body as Block)['thinking']).toEqual({ type: 'adaptive' });
    const sent = assistantBlocks(request?.body);
    expect(sent).toHaveLength(2);
    for (const blocks of sent) {
      expect(blocks[0]?.['type']).toBe('thinking');
      expect(blocks[0]).not.toHaveProperty('signature');
    }

    const off = await runHermes(
      ['chat', '--resume', first.session_id, '-q', 'once more', '--json', '--no-reasoning', ...MINIMAX],
      sandbox,
      env,
    );
    expect(off.code, off.stderr).toBe(0);
    const offRequest = emulator.requests[1];
    expect((offRequest?.body as Block)['thinking']).toEqual({ type: 'disabled' });
    // SPEC §24.3, §25.3: with thinking off, the readable thinking still travels, as bare text.
    const offBlocks = assistantBlocks(offRequest?.body);
    expect(offBlocks.flat().some((block) => block['type'] === 'thinking')).toBe(false);
    const movedThinking = assistantBlocks(request?.body)[1]?.[0]?.['thinking'];
    expect(typeof movedThinking).toBe('string');
    expect(offBlocks[1]?.[0]).toEqual({ type: 'text', text: movedThinking });

    const back = await runHermes(
      ['chat', '--resume', first.session_id, '-q', 'and now?', '--json', ...MINIMAX],
      sandbox,
      env,
    );
    expect(back.code, back.stderr).toBe(0);
    // The MiniMax-issued turn (the first one on this route) replays with its signature.
    const third = assistantBlocks(emulator.requests[2]?.body);
    expect(third[2]?.[0]).toMatchObject({ type: 'thinking' });
    expect(typeof third[2]?.[0]?.['signature']).toBe('string');
    expect(emulator.requests.map((received) => received.status)).toEqual([200, 200, 200]);
  });
});
