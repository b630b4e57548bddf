/**
 * The Anthropic emulator's on-demand compaction (beta `compact-2026-09-04`) over raw HTTP, as it
 * reads Anthropic's compaction pages: the compaction request and its block, the rules for sending
 * the block back, and when the thinking of turns kept after it stays valid in binding `error` mode.
 */
import { afterEach, describe, expect, it } from 'vitest';
import {
  startAnthropicEmulator,
  type AnthropicEmulator,
} from '../../../src/emulators/anthropic-messages/anthropic-emulator.js';

const COMPACT = 'compact-2026-09-04';
const running: AnthropicEmulator[] = [];
afterEach(async () => {
  for (const emulator of running.splice(0)) await emulator.close();
});

type Body = Record<string, unknown>;
type Block = Record<string, unknown>;

async function start(): Promise<AnthropicEmulator> {
  const emulator = await startAnthropicEmulator({ binding: 'error' });
  running.push(emulator);
  return emulator;
}

function send(emulator: AnthropicEmulator, body: Body, betas: string[] = [COMPACT]): Promise<Response> {
  return fetch(`${emulator.baseUrl}/v1/messages`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'x-api-key': 'k',
      'anthropic-version': '2023-06-01',
      ...(betas.length > 0 ? { 'anthropic-beta': betas.join(',') } : {}),
    },
    body: JSON.stringify(body),
  });
}

async function post(emulator: AnthropicEmulator, body: Body, betas: string[] = [COMPACT]) {
  const response = await send(emulator, body, betas);
  return { status: response.status, body: (await response.json()) as Body };
}

const errorOf = (body: Body) => (body['error'] as { message: string }).message;

function request(messages: unknown[], extra: Body = {}, model = 'claude-fable-5-1'): Body {
  return { model, max_tokens: 4096, system: 'S', thinking: { type: 'adaptive' }, messages, ...extra };
}

/** Two answered turns: `[user, assistant, user, assistant]`, each answer with signed thinking. */
async function twoTurns(emulator: AnthropicEmulator, model?: string): Promise<Block[]> {
  let history: Block[] = [];
  for (const text of ['one', 'two']) {
    history = [...history, { role: 'user', content: text }];
    const answer = await post(emulator, request(history, {}, model));
    expect(answer.status).toBe(200);
    history = [...history, { role: 'assistant', content: answer.body['content'] as Block[] }];
  }
  return history;
}

/** Compacts the first turn, keeps the second: the block. */
async function compactFirstTurn(emulator: AnthropicEmulator, history: Block[], model?: string): Promise<Block> {
  const answer = await post(emulator, request(history.slice(0, 2), { compaction: { type: 'summarize' } }, model));
  expect(answer.status).toBe(200);
  expect(answer.body['stop_reason']).toBe('compaction');
  const content = answer.body['content'] as Block[];
  expect(content).toHaveLength(1);
  return content[0]!;
}

describe('on-demand compaction in the Anthropic emulator', () => {
  it('a compaction request returns one signed block and no reply; the kept turn’s thinking stays valid after the swap', async () => {
    const emulator = await start();
    const history = await twoTurns(emulator);
    const block = await compactFirstTurn(emulator, history);
    expect(block).toMatchObject({ type: 'compaction', content: expect.stringContaining('one') });
    expect(typeof block['signature']).toBe('string');
    const next = await post(
      emulator,
      request([{ role: 'assistant', content: [block] }, ...history.slice(2), { role: 'user', content: 'three' }]),
    );
    expect(next.status).toBe(200);
    expect(emulator.binding).toEqual({ rejections: 0, drops: [] });
  });

  it('a changed system prompt after the swap, or a compaction on a model without preserved thinking, breaks the kept thinking', async () => {
    const emulator = await start();
    const history = await twoTurns(emulator);
    const block = await compactFirstTurn(emulator, history);
    const swapped = [{ role: 'assistant', content: [block] }, ...history.slice(2), { role: 'user', content: 'three' }];
    const changed = await post(emulator, { ...request(swapped), system: 'S2' });
    expect(changed.status).toBe(400);
    expect(errorOf(changed.body)).toContain('bound to a different conversation');
    // Claude Opus 4.6 compacts on demand but has no preserved thinking.
    const older = await post(
      emulator,
      request(history.slice(0, 2), { compaction: { type: 'summarize' } }, 'claude-opus-4-6'),
    );
    expect(older.status).toBe(200);
    const olderBlock = (older.body['content'] as Block[])[0]!;
    const after = await post(
      emulator,
      request([{ role: 'assistant', content: [olderBlock] }, ...history.slice(2), { role: 'user', content: 'three' }]),
    );
    expect(after.status).toBe(400);
    expect(errorOf(after.body)).toContain('bound to a different conversation');
  });

  it('refuses what the pages refuse', async () => {
    const emulator = await start();
    const history = await twoTurns(emulator);
    const block = await compactFirstTurn(emulator, history);
    const swapped = [{ role: 'assistant', content: [block] }, ...history.slice(2), { role: 'user', content: 'three' }];
    const noBeta = await post(emulator, request(history.slice(0, 2), { compaction: { type: 'summarize' } }), []);
    expect(errorOf(noBeta.body)).toContain('requires anthropic-beta: compact-2026-09-04');
    const blockNoBeta = await post(emulator, request(swapped), []);
    expect(errorOf(blockNoBeta.body)).toContain("Input tag 'compaction'");
    const edited = [
      { role: 'assistant', content: [{ ...block, content: `${String(block['content'])}!` }] },
      ...swapped.slice(1),
    ];
    expect(errorOf((await post(emulator, request(edited))).body)).toContain('compaction_content_mismatch');
    const resigned = [{ role: 'assistant', content: [{ ...block, signature: 'AAAA' }] }, ...swapped.slice(1)];
    expect(errorOf((await post(emulator, request(resigned))).body)).toContain('compaction_signature_invalid');
    const misplaced = [...history.slice(0, 2), { role: 'assistant', content: [block] }, ...history.slice(2)];
    expect(errorOf((await post(emulator, request(misplaced))).body)).toContain('compaction_block_misplaced');
    const withContext = await post(
      emulator,
      request(history.slice(0, 2), { compaction: { type: 'summarize' }, context_management: { edits: [] } }),
    );
    expect(errorOf(withContext.body)).toContain('cannot be combined with `context_management`');
    const unsupported = await post(
      emulator,
      request(history.slice(0, 2), { compaction: { type: 'summarize' } }, 'claude-sonnet-4-5'),
    );
    expect(errorOf(unsupported.body)).toContain('not supported on claude-sonnet-4-5');
  });

  it('streams the block whole: one content_block_start, no deltas', async () => {
    const emulator = await start();
    const history = await twoTurns(emulator);
    const response = await send(
      emulator,
      request(history.slice(0, 2), { compaction: { type: 'summarize' }, stream: true }),
    );
    const text = await response.text();
    expect(text).toContain('"content_block":{"type":"compaction"');
    expect(text).not.toContain('content_block_delta');
    expect(text).toContain('"stop_reason":"compaction"');
  });
});
