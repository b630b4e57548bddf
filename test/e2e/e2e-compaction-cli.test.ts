import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { AssistantMessage, Message } from '../../src/core/message.js';
import { sealReasoning } from '../../src/emulators/shared/scripted-model.js';
import { chatJson, parseJson, runHermes, type Sandbox, useE2e, resumeArgs } from '../support/e2e.js';
import { seedDeepSeekSession } from '../support/long-session.js';

/**
 * `hermes sessions compress ID --child --keep-turns N` (SPEC §16, today's child sessions): the salvage pass keeps fewer
 * turns than asked when they do not fit, with the same retention rule; a pass that would free
 * nothing says so and stops after one summary request; a session with nothing between its first
 * message and its kept turns sends no request at all.
 */

const e2e = useE2e();

interface ShownSession {
  parent_session_id: string | null;
  children: string[];
  model_config: Record<string, unknown>;
  messages: Message[];
}

/** One tool-call turn as DeepSeek stores it: RC on the tool turn and on the answer. */
function toolTurn(turn: number, resultText: string): Message[] {
  const id = `call_${turn}_1`;
  return [
    { role: 'user', content: `turn ${turn}: read the file notes.txt` },
    {
      role: 'assistant',
      content: null,
      reasoning_content: sealReasoning(`Turn ${turn}: I should call read_file.`),
      tool_calls: [{ id, type: 'function', function: { name: 'read_file', arguments: '{"path":"notes.txt"}' } }],
      finish_reason: 'tool_calls',
    },
    { role: 'tool', tool_call_id: id, tool_name: 'read_file', content: resultText },
    {
      role: 'assistant',
      content: `The tool returned: ${resultText.slice(0, 40)}`,
      reasoning_content: sealReasoning(`Turn ${turn}: the tool answered.`),
      finish_reason: 'stop',
    },
  ];
}

const route = (baseUrl: string) => ['--base-url', baseUrl, '--api-key', 'k'];

/** Eight ~370-token tool turns under a 2,000-token context window (compaction limit 1,600 tokens). */
async function seedLongSession(sandbox: Sandbox, baseUrl: string): Promise<{ id: string; history: Message[] }> {
  writeFileSync(join(sandbox.home, 'config.yaml'), 'compaction:\n  context_window: 2000\n');
  const history: Message[] = [];
  for (let turn = 1; turn <= 8; turn += 1) history.push(...toolTurn(turn, 'alpha beta gamma delta '.repeat(60)));
  return { id: await seedDeepSeekSession(sandbox.home, baseUrl, history), history };
}

describe('hermes sessions compress (SPEC §16)', () => {
  it('salvage: keep-turns larger than fits keeps fewer whole turns, each with its reasoning_content', async () => {
    const emulator = await e2e.chat({ persona: 'deepseek' });
    const sandbox = e2e.sandbox();
    // Limit 0.8 × 2000 = 1600 tokens; each turn is ~370, so 6 kept turns cannot fit beside a summary.
    const { id, history } = await seedLongSession(sandbox, emulator.baseUrl);

    const run = await runHermes(
      ['sessions', 'compress', id, '--child', '--keep-turns', '6', ...route(emulator.baseUrl)],
      sandbox,
    );
    expect(run.code, run.stderr).toBe(0);
    const childId = run.stdout.trim();
    const child = parseJson<ShownSession>(await runHermes(['sessions', 'show', childId, '--json'], sandbox));
    const entry = child.model_config['compaction'] as { kept_turns: number; salvaged: boolean };
    expect(entry.salvaged).toBe(true);
    expect(entry.kept_turns).toBeGreaterThanOrEqual(1);
    expect(entry.kept_turns).toBeLessThan(6);
    expect(run.stderr).toContain(
      `keeping ${entry.kept_turns} recent turns (salvage: 6 would not fit beside a summary)`,
    );
    expect(child.parent_session_id).toBe(id);

    // Same retention rule: whole turns from a user message on, identical to the source's last turns.
    const tail = history.slice(history.length - 4 * entry.kept_turns);
    expect(child.messages).toEqual([history[0], expect.objectContaining({ role: 'user' }), ...tail]);
    const kept = child.messages.filter((message): message is AssistantMessage => message.role === 'assistant');
    expect(kept.every((message) => typeof message.reasoning_content === 'string')).toBe(true);
    // A 2,000-token window: the transcript goes in parts that fit, then one merge; every request answered.
    const summaries = emulator.requests.length;
    expect(summaries).toBeGreaterThan(1);
    expect(emulator.requests.every((request) => request.status === 200)).toBe(true);

    // The compacted child continues: a tool-call turn on it succeeds with no 400 (must-echo RC kept).
    const next = await chatJson(sandbox, [
      ...resumeArgs(childId, 'read the file notes.txt'),
      ...route(emulator.baseUrl),
    ]);
    expect(next.answer).toMatch(/Reasoning continuity: intact/);
    expect(emulator.requests.slice(summaries).map((request) => request.status)).toEqual([200, 200]);
  });

  it('resuming a compacted session continues in its compaction child and does not compact it again', async () => {
    const emulator = await e2e.chat({ persona: 'deepseek' });
    const sandbox = e2e.sandbox();
    // Over the limit: a turn on the long parent would compact it (again).
    const { id, history } = await seedLongSession(sandbox, emulator.baseUrl);
    const compressed = await runHermes(
      ['sessions', 'compress', id, '--child', '--keep-turns', '1', ...route(emulator.baseUrl)],
      sandbox,
    );
    expect(compressed.code, compressed.stderr).toBe(0);
    const childId = compressed.stdout.trim();
    const summaries = emulator.requests.length;

    const resumed = await runHermes(
      ['chat', ...resumeArgs(id, 'and now?'), '--json', ...route(emulator.baseUrl)],
      sandbox,
    );
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(parseJson<{ session_id: string }>(resumed).session_id).toBe(childId);
    expect(resumed.stderr).toContain(
      `hermes: ${id} was compacted into ${childId}; continuing there (the full history: hermes sessions show ${id})\n`,
    );
    // The summary requests of the compress, then the turn: no second compaction, no second child.
    expect(emulator.requests).toHaveLength(summaries + 1);
    const parent = parseJson<ShownSession>(await runHermes(['sessions', 'show', id, '--json'], sandbox));
    expect(parent.children).toEqual([childId]);
    expect(parent.messages).toHaveLength(history.length);
  });

  it('a pass that would free nothing says so and stops after one summary request, leaving no child', async () => {
    const emulator = await e2e.chat({ persona: 'deepseek' });
    const sandbox = e2e.sandbox();
    // The middle (three one-word messages) is smaller than any summary the model writes.
    const id = await seedDeepSeekSession(sandbox.home, emulator.baseUrl, [
      { role: 'user', content: 'start' },
      { role: 'assistant', content: 'ok', reasoning_content: '' },
      { role: 'user', content: 'x' },
      { role: 'assistant', content: 'y', reasoning_content: ' ' },
      { role: 'user', content: 'last' },
      { role: 'assistant', content: 'fine', reasoning_content: 'r' },
    ]);
    const run = await runHermes(['sessions', 'compress', id, '--keep-turns', '1', ...route(emulator.baseUrl)], sandbox);
    expect(run.code).toBe(0);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(/compaction would free nothing \(about \d+ tokens before, \d+ after\); stopped/);
    expect(emulator.requests).toHaveLength(1);
    const shown = parseJson<ShownSession>(await runHermes(['sessions', 'show', id, '--json'], sandbox));
    expect(shown.children).toEqual([]);
    expect(shown.messages).toHaveLength(6);
  });

  it('nothing between the first message and the kept turns: says so, sends no request', async () => {
    const emulator = await e2e.chat({ persona: 'deepseek' });
    const sandbox = e2e.sandbox();
    const id = await seedDeepSeekSession(sandbox.home, emulator.baseUrl, toolTurn(1, 'alpha'));
    const run = await runHermes(['sessions', 'compress', id, '--tail', 'turns', ...route(emulator.baseUrl)], sandbox);
    expect(run.code).toBe(0);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain('nothing to compact');
    expect(emulator.requests).toHaveLength(0);
  });
});
