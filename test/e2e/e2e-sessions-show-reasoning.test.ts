import { describe, expect, it } from 'vitest';
import type { AssistantMessage, Message } from '../../src/core/message.js';
import { chatJson, parseJson, runHermes, useE2e } from '../support/e2e.js';

/**
 * `hermes sessions show ID` (plain) prints each assistant turn's reasoning text under its carrier
 * sizes: the first lines, or all of them with `--full` (SPEC §20 sessions show). Piped, so no
 * dimming escapes.
 */

const e2e = useE2e();

describe('sessions show prints the reasoning', () => {
  it('first lines under the carriers line, every line with --full', async () => {
    const sandbox = e2e.sandbox();
    const { session_id: id } = await chatJson(sandbox, [
      '-q',
      'read the file notes.txt',
      '--provider',
      'emulator:deepseek',
    ]);
    const stored = parseJson<{ messages: Message[] }>(await runHermes(['sessions', 'show', id, '--json'], sandbox));
    // The readable reasoning: the extracted text, else the raw reasoning_content.
    const readable = (message: AssistantMessage) =>
      message.reasoning?.trim() ? message.reasoning : (message.reasoning_content ?? '');
    const withReasoning = stored.messages.filter(
      (message): message is AssistantMessage => message.role === 'assistant' && Boolean(readable(message).trim()),
    );
    expect(withReasoning.length).toBeGreaterThan(0);

    const plain = await runHermes(['sessions', 'show', id], sandbox);
    expect(plain.code, plain.stderr).toBe(0);
    expect(plain.stdout).not.toContain('\x1b[');
    const lines = plain.stdout.split('\n');
    const first = lines.findIndex((line) => line.startsWith('          reasoning: '));
    expect(first).toBeGreaterThan(0);
    expect(lines[first - 1]).toMatch(/^ {10}carriers: .*reasoning_content\(\d+ B\)/);
    const text = readable(withReasoning[0]!).trim().split('\n');
    expect(lines[first]).toBe(`          reasoning: ${text[0]}`);
    if (text.length > 3) expect(plain.stdout).toContain(`… ${text.length - 3} more lines (sessions show --full)`);

    const full = await runHermes(['sessions', 'show', id, '--full'], sandbox);
    expect(full.code, full.stderr).toBe(0);
    for (const message of withReasoning) {
      for (const line of readable(message).trim().split('\n')) expect(full.stdout).toContain(line);
    }
    expect(full.stdout).not.toContain('more lines (sessions show --full)');
    // --full prints the stored system prompt whole.
    expect(full.stdout).toContain('Environment:\n');
  });
});
