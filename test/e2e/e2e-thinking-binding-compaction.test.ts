import { describe, expect, it } from 'vitest';
import type { AnthropicEmulator } from '../../src/emulators/anthropic-messages/anthropic-emulator.js';
import { sentThinkingBlocks, signatureOf } from '../support/carriers.js';
import { lastRequestDecisions } from '../support/request-records.js';
import {
  chatJson,
  parseJson,
  resumeArgs,
  routeArgs,
  runHermes,
  showSession,
  useE2e,
  withStateDb,
  type Sandbox,
} from '../support/e2e.js';

/**
 * SPEC §26.4, server-side compaction (docs/wire.md §2.7): on a bound Claude model on the direct
 * API, `hermes sessions compress` asks the API for the summary (`compaction: {"type":
 * "summarize"}`, beta `compact-2026-09-04`), keeps the signed `compaction` block with the summary
 * message, sends it first on the next request, and the kept turn's signed thinking goes with it
 * byte for byte — against the Anthropic emulator in binding `error` mode: no binding 400, nothing
 * dropped, nothing explained away. A refusal naming compaction turns it off for the route and
 * Hermes writes the summary itself.
 */

const e2e = useE2e();
const FABLE = 'claude-fable-5-1';
const STALE_PREFIX = 'bound to another conversation (prefix changed)';

type Block = Record<string, unknown>;
interface Shown {
  model_config: Record<string, unknown>;
  messages: Record<string, unknown>[];
}

function route(emulator: AnthropicEmulator): string[] {
  return routeArgs('anthropic', FABLE, emulator.baseUrl, 'x');
}

/** Three turns with thinking, then `sessions compress --keep-turns 1 --json`. */
async function threeTurnsThenCompress(
  sandbox: Sandbox,
  emulator: AnthropicEmulator,
): Promise<{ sessionId: string; record: Record<string, unknown>; stderr: string }> {
  const first = await chatJson(sandbox, ['-q', 'hello there', ...route(emulator)]);
  await chatJson(sandbox, [...resumeArgs(first.session_id, 'second question'), ...route(emulator)]);
  await chatJson(sandbox, [...resumeArgs(first.session_id, 'third question'), ...route(emulator)]);
  const run = await runHermes(
    ['sessions', 'compress', first.session_id, '--keep-turns', '1', '--json', ...route(emulator)],
    sandbox,
  );
  expect(run.code).toBe(0);
  const printed = parseJson<{ compacted: boolean; record: Record<string, unknown> }>(run);
  expect(printed.compacted).toBe(true);
  return { sessionId: first.session_id, record: printed.record, stderr: run.stderr };
}

describe('server-side compaction on a bound Anthropic model (SPEC §26.4)', () => {
  it('the API writes the summary; the block leads the next request and the kept turn’s thinking travels byte for byte', async () => {
    const emulator = await e2e.anthropic({ binding: 'error' });
    const sandbox = e2e.sandbox();
    const { sessionId, record } = await threeTurnsThenCompress(sandbox, emulator);
    expect(record['summarised_by']).toBe('anthropic');
    // The compaction request: the summarised messages with the parameter and the beta.
    const compactionRequest = emulator.requests.at(-1)!;
    const sent = compactionRequest.body as Block;
    expect(sent['compaction']).toMatchObject({ type: 'summarize' });
    expect(compactionRequest.headers['anthropic-beta']).toContain('compact-2026-09-04');
    // The kept turn (the third) had its thinking block; it was not in the compaction request.
    const beforeSignatures = sentThinkingBlocks(sent).flat().map(signatureOf);
    // The stored summary message keeps the block exactly as returned.
    const shown = await showSession<Shown>(sandbox, sessionId);
    const carrier = shown.messages.find((message) => message['_anthropic_compaction'] !== undefined)?.[
      '_anthropic_compaction'
    ] as { block: Block } | undefined;
    expect(carrier?.block['type']).toBe('compaction');
    const storedKept = shown.messages.filter((message) => message['role'] === 'assistant').at(-1) as {
      anthropic_content_blocks: Block[];
    };
    const keptThinking = storedKept.anthropic_content_blocks.filter((block) => block['type'] === 'thinking');
    expect(keptThinking).toHaveLength(1);

    const after = await chatJson(sandbox, [...resumeArgs(sessionId, 'after compaction'), ...route(emulator)]);
    expect(after.answer).toContain('You said: after compaction');
    const next = emulator.requests.at(-1)!;
    const body = next.body as { messages: Block[] };
    // The block goes first, alone in its message, exactly as the API returned it, with the beta.
    expect(body.messages[0]).toEqual({ role: 'assistant', content: [carrier!.block] });
    expect(next.headers['anthropic-beta']).toContain('compact-2026-09-04');
    // The kept turn's signed thinking block, byte for byte, and none of the summarised ones.
    const nextThinking = sentThinkingBlocks(body).flat();
    expect(nextThinking).toEqual(keptThinking.map(({ type, thinking, signature }) => ({ type, thinking, signature })));
    for (const signature of nextThinking.map(signatureOf)) expect(beforeSignatures).not.toContain(signature);
    expect(await lastRequestDecisions(sandbox, sessionId, 'thinking')).toEqual(['kept: signed: same issuer']);
    expect(await lastRequestDecisions(sandbox, sessionId, 'compaction')).toEqual([
      'kept: compaction block: same platform',
    ]);
    // And the turn after: both thinking blocks (the kept one and the new one) kept.
    await chatJson(sandbox, [...resumeArgs(sessionId, 'and again'), ...route(emulator)]);
    expect(await lastRequestDecisions(sandbox, sessionId, 'thinking')).toEqual([
      'kept: signed: same issuer',
      'kept: signed: same issuer',
    ]);
    // No binding 400, nothing the provider had to drop, every request 200.
    expect(emulator.binding).toEqual({ rejections: 0, drops: [] });
    expect(emulator.requests.map((request) => request.status).filter((status) => status !== 200)).toEqual([]);
  });

  it('a refusal naming compaction turns it off for the route: Hermes summarises, the kept blocks are explained', async () => {
    const emulator = await e2e.anthropic({ binding: 'error' });
    const sandbox = e2e.sandbox();
    const refusal = JSON.stringify({
      type: 'error',
      error: { type: 'invalid_request_error', message: 'compaction: on-demand compaction is not supported here' },
    });
    const first = await chatJson(sandbox, ['-q', 'hello there', ...route(emulator)]);
    await chatJson(sandbox, [...resumeArgs(first.session_id, 'second question'), ...route(emulator)]);
    await chatJson(sandbox, [...resumeArgs(first.session_id, 'third question'), ...route(emulator)]);
    emulator.faults.add({ kind: 'status', status: 400, body: refusal });
    const run = await runHermes(
      ['sessions', 'compress', first.session_id, '--keep-turns', '1', '--json', ...route(emulator)],
      sandbox,
    );
    expect(run.code).toBe(0);
    const record = parseJson<{ record: Record<string, unknown> }>(run).record;
    expect(record['summarised_by']).toBe('hermes');
    expect(record['api_summary_fallback']).toMatch(/refused on-demand compaction \(400\); off for this route/);
    const shown = await showSession<Shown>(sandbox, first.session_id);
    expect(shown.model_config['anthropic_compaction_off']).toEqual([expect.stringContaining(FABLE)]);
    // What the session learned is listed with the other route learnings.
    const verdicts = await runHermes(['routes', 'verdicts'], sandbox);
    expect(verdicts.stdout).toMatch(/native compaction off for anthropic\|.*claude-fable-5-1/);
    const after = await chatJson(sandbox, [...resumeArgs(first.session_id, 'after compaction'), ...route(emulator)]);
    expect(after.answer).toContain('You said: after compaction');
    const decisions = await lastRequestDecisions(sandbox, first.session_id, 'thinking');
    expect(decisions.length).toBeGreaterThan(0);
    for (const decision of decisions) expect(decision).toContain(STALE_PREFIX);
    expect(emulator.binding).toEqual({ rejections: 0, drops: [] });
  });

  it('a block the API refuses on a later request: one 400, on-demand compaction off, retried with the summary as text', async () => {
    const emulator = await e2e.anthropic({ binding: 'error' });
    const sandbox = e2e.sandbox();
    const { sessionId } = await threeTurnsThenCompress(sandbox, emulator);
    // Alter the stored block's summary, as a hand-edited row would.
    withStateDb(sandbox.home, (database) => {
      const rows = database.prepare('SELECT id, extra FROM messages WHERE session_id = ?').all(sessionId) as {
        id: number;
        extra: string | null;
      }[];
      const row = rows.find((candidate) => candidate.extra?.includes('_anthropic_compaction'))!;
      const extra = JSON.parse(row.extra!) as { _anthropic_compaction: { block: Block } };
      extra._anthropic_compaction.block['content'] = `${String(extra._anthropic_compaction.block['content'])} (edited)`;
      database.prepare('UPDATE messages SET extra = ? WHERE id = ?').run(JSON.stringify(extra), row.id);
    });
    const before = emulator.requests.length;
    const after = await chatJson(sandbox, [...resumeArgs(sessionId, 'after compaction'), ...route(emulator)]);
    expect(after.answer).toContain('You said: after compaction');
    expect(emulator.requests.slice(before).map((request) => request.status)).toEqual([400, 200]);
    const retried = emulator.requests.at(-1)!.body as { messages: Block[] };
    expect(JSON.stringify(retried.messages)).not.toContain('"type":"compaction"');
    const shown = await showSession<Shown>(sandbox, sessionId);
    expect(shown.model_config['anthropic_compaction_off']).toEqual([expect.stringContaining(FABLE)]);
    expect(await lastRequestDecisions(sandbox, sessionId, 'compaction')).toEqual([
      'dropped: compaction block (on-demand compaction not on for this route): its summary goes as text',
    ]);
    expect(emulator.binding).toEqual({ rejections: 0, drops: [] });
  });
});
