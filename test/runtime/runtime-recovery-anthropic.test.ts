/**
 * The Anthropic recovery rows of SPEC §26.2 and §26.4 (runtime-recovery-anthropic.ts): a refused
 * `block_binding` is learned like an unknown field; a binding 400 condemns the named block and the
 * later ones only; the WIRE §8 shape errors get a one-retry repair of the body.
 */
import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../../src/core/json.js';
import { resolveRouteProfile } from '../../src/replay/replay-route-profile.js';
import { fingerprintOf } from '../../src/replay/anthropic-signature-memory.js';
import { RECOVERIES, type RecoveryContext } from '../../src/runtime/runtime-recovery.js';
import {
  learnedFrom,
  REJECTED_REQUEST_FIELDS_KEY,
  THINKING_BINDINGS_KEY,
} from '../../src/runtime/runtime-route-memory.js';
import { recoveryContext } from './runtime-test-helpers.js';

const PROFILE = resolveRouteProfile({ api: 'anthropic_messages', provider: 'anthropic', model: 'claude-fable-5-1' });
const row = (name: string) => {
  const found = RECOVERIES.anthropic_messages.find((candidate) => candidate.name === name);
  if (!found) throw new Error(`no row ${name}`);
  return found;
};
const error = (message: string) => JSON.stringify({ type: 'error', error: { type: 'invalid_request_error', message } });

function context(body: JsonObject, text: string, config: JsonObject = {}): Promise<RecoveryContext> {
  return recoveryContext(PROFILE, body, text, config);
}

const thinking = (signature: string) => ({ type: 'thinking', thinking: 't', signature });
const DECLARED: JsonObject = {
  thinking: { type: 'adaptive', block_binding: { prefix_mismatch_behavior: 'drop_block' } },
  messages: [
    { role: 'user', content: [{ type: 'text', text: 'q1' }] },
    { role: 'assistant', content: [thinking('A'), { type: 'text', text: 'a1' }] },
    { role: 'user', content: [{ type: 'text', text: 'q2' }] },
    { role: 'assistant', content: [thinking('B'), { type: 'text', text: 'a2' }] },
    { role: 'user', content: [{ type: 'text', text: 'q3' }] },
  ],
};

describe('anthropic-binding-controls (SPEC §26.4)', () => {
  const refusal = error('thinking.adaptive.block_binding: Extra inputs are not permitted');

  it('is the first Anthropic row, and classifies a refusal of a declared block_binding only', async () => {
    expect(RECOVERIES.anthropic_messages[0]?.name).toBe('anthropic-binding-controls');
    expect(row('anthropic-binding-controls').classify(await context(DECLARED, refusal))).toBe(true);
    expect(
      row('anthropic-binding-controls').classify(
        await context({ ...DECLARED, thinking: { type: 'adaptive' } }, refusal),
      ),
    ).toBe(false);
    const bound = error(
      'messages.1.content.0: Invalid `signature` in `thinking` block. The block is bound to a different conversation. Remove the block, or set `thinking.block_binding.prefix_mismatch_behavior` to "drop_block".',
    );
    expect(row('anthropic-binding-controls').classify(await context(DECLARED, bound))).toBe(false);
  });

  it('learns it per (provider, host, model), in the session and store-wide, so the retry goes without it', async () => {
    const c = await context(DECLARED, refusal);
    const recovery = await row('anthropic-binding-controls').learn(c);
    expect(recovery?.config[REJECTED_REQUEST_FIELDS_KEY]).toEqual([
      ['anthropic', '', 'claude-fable-5-1', ['block_binding']],
    ]);
    expect(recovery?.learned).toEqual({ kind: 'request-field', fields: ['block_binding'] });
    expect(learnedFrom(recovery?.config ?? {}, [], PROFILE).bindingControlsRefused).toBe(true);
    const verdict = await c.store.getVerdict(PROFILE.routeKey);
    expect(verdict?.fields).toEqual(['request:block_binding']);
    // Store-wide: a new session on the route starts knowing it.
    expect(learnedFrom({}, [], PROFILE, verdict).bindingControlsRefused).toBe(true);
  });
});

describe('anthropic-signature on a binding 400 (SPEC §26.4)', () => {
  it('condemns the named block and every later one; the earlier ones keep travelling', async () => {
    const bound = error(
      'messages.3.content.0: Invalid `signature` in `thinking` block. The block is bound to a different conversation.',
    );
    const recovery = await row('anthropic-signature').learn(await context(DECLARED, bound));
    expect(recovery?.config['_anthropic_rejected_thinking']).toEqual([fingerprintOf('thinking', 'B')]);
  });
});

describe('anthropic-signature on a model that runs no prefix check (SPEC §26.4, system binding)', () => {
  const OPUS4 = resolveRouteProfile({ api: 'anthropic_messages', provider: 'anthropic', model: 'claude-opus-4-8' });
  const refused = error('messages.3.content.0: Invalid `signature` in `thinking` block');
  async function refusal(systemChangedBlocks?: [number, number][]) {
    const c = await recoveryContext(OPUS4, DECLARED, refused);
    if (systemChangedBlocks) c.prepared = { ...c.prepared, systemChangedBlocks };
    return { c, recovery: await row('anthropic-signature').learn(c) };
  }

  it('learns that the route binds thinking to the system prompt when the refused block was sent under another one', async () => {
    const { c, recovery } = await refusal([[3, 0]]);
    expect(recovery?.config[THINKING_BINDINGS_KEY]).toEqual([['anthropic', '', 'claude-opus-4-8', ['system']]]);
    expect(recovery?.log).toContain('binds thinking to the system prompt');
    expect(learnedFrom(recovery?.config ?? {}, [], OPUS4).systemBound).toBe(true);
    const verdict = await c.store.getVerdict(OPUS4.routeKey);
    expect(verdict?.fields).toEqual(['binding:system']);
    expect(learnedFrom({}, [], OPUS4, verdict).systemBound).toBe(true);
  });

  it('learns nothing of the kind when the refused block kept its system prompt, or another block moved', async () => {
    for (const moved of [undefined, [[1, 0]] as [number, number][]]) {
      const { c, recovery } = await refusal(moved);
      expect(recovery?.config[THINKING_BINDINGS_KEY]).toBeUndefined();
      expect(recovery?.config['_anthropic_rejected_thinking']).toHaveLength(2);
      expect(await c.store.getVerdict(OPUS4.routeKey)).toBeNull();
    }
  });
});

describe('the WIRE §8 shape repairs (SPEC §26.2)', () => {
  it('"each thinking block must contain thinking": the empty block is left out of the retry', async () => {
    const body: JsonObject = {
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'q' }] },
        {
          role: 'assistant',
          content: [
            { type: 'thinking', thinking: '' },
            { type: 'text', text: 'a' },
          ],
        },
        { role: 'user', content: [{ type: 'text', text: 'q2' }] },
      ],
    };
    const c = await context(body, error('messages.1.content.0.thinking: each thinking block must contain thinking'));
    const recovery = await row('anthropic-empty-thinking').learn(c);
    expect((recovery?.rewriteBody?.(body)['messages'] as JsonObject[])[1]).toEqual({
      role: 'assistant',
      content: [{ type: 'text', text: 'a' }],
    });
    expect(await row('anthropic-empty-thinking').learn(await context(DECLARED, c.body))).toBeNull();
  });

  it('"the first block must be `thinking`": thinking goes first in the retry', async () => {
    const body: JsonObject = {
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'q' }] },
        { role: 'assistant', content: [{ type: 'text', text: 'a' }, thinking('A')] },
        { role: 'user', content: [{ type: 'text', text: 'q2' }] },
      ],
    };
    const text = error(
      'messages.1.content.0: If an assistant message contains any thinking blocks, the first block must be `thinking` or `redacted_thinking`. Found `text`.',
    );
    const recovery = await row('anthropic-thinking-first').learn(await context(body, text));
    expect((recovery?.rewriteBody?.(body)['messages'] as JsonObject[])[1]?.['content']).toEqual([
      thinking('A'),
      { type: 'text', text: 'a' },
    ]);
  });

  it('DeepSeek "content[].thinking … must be passed back": the stand-in thinking block, else the error surfaces', async () => {
    const call = { type: 'tool_use', id: 't1', name: 'read_file', input: {} };
    const body: JsonObject = {
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'q' }] },
        { role: 'assistant', content: [call] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: 'x' }] },
      ],
    };
    const text = error('The content[].thinking in the thinking mode must be passed back to the API.');
    const recovery = await row('deepseek-thinking-required').learn(await context(body, text));
    expect((recovery?.rewriteBody?.(body)['messages'] as JsonObject[])[1]?.['content']).toEqual([
      { type: 'thinking', thinking: ' ' },
      call,
    ]);
    const padded = recovery?.rewriteBody?.(body) ?? {};
    expect(await row('deepseek-thinking-required').learn(await context(padded, text))).toBeNull();
  });

  it('"cannot be modified": the condemned blocks are remembered and the retry goes without them', async () => {
    const text = error(
      'messages.3.content.0: `thinking` or `redacted_thinking` blocks in the latest assistant message cannot be modified. These blocks must remain as they were in the original response.',
    );
    const recovery = await row('anthropic-thinking-modified').learn(await context(DECLARED, text));
    expect(recovery?.config['_anthropic_rejected_thinking']).toEqual([fingerprintOf('thinking', 'B')]);
  });
});
