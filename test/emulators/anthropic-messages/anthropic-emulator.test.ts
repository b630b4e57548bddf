/**
 * The Anthropic emulator enforces WIRE.md §2.6 and the SPEC §9.1 per-model "keeps prior thinking"
 * behaviour; raw HTTP, no transport in between.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  startAnthropicEmulator,
  type AnthropicEmulator,
} from '../../../src/emulators/anthropic-messages/anthropic-emulator.js';
import {
  openRedactedThinking,
  sealRedactedThinking,
  signThinking,
  verifyThinkingSignature,
} from '../../../src/emulators/anthropic-messages/anthropic-emulator-signing.js';

let emulator: AnthropicEmulator;
let bound: AnthropicEmulator;
beforeAll(async () => {
  emulator = await startAnthropicEmulator();
  bound = await startAnthropicEmulator({ boundSignatureWording: true });
});
afterAll(async () => {
  await emulator.close();
  await bound.close();
});

async function post(
  target: AnthropicEmulator,
  body: unknown,
  headers: Record<string, string> = { 'x-api-key': 'k', 'anthropic-version': '2023-06-01' },
  path = '/v1/messages',
) {
  const response = await fetch(`${target.baseUrl}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

const errorMessage = (body: Record<string, unknown>) => (body['error'] as { message: string }).message;

/** A two-turn history whose first assistant turn carries a (possibly altered) signed thinking block. */
function priorTurnBody(model: string, signature: string) {
  return {
    model,
    max_tokens: 4096,
    system: 'S',
    thinking: { type: 'enabled', budget_tokens: 1024 },
    messages: [
      { role: 'user', content: [{ type: 'text', text: 'one' }] },
      {
        role: 'assistant',
        content: [
          { type: 'thinking', thinking: 'prior', signature },
          { type: 'text', text: 'ok' },
        ],
      },
      { role: 'user', content: [{ type: 'text', text: 'two' }] },
    ],
  };
}

describe('emulator signing helpers', () => {
  it('signatures bind thinking text and system prompt; redacted data opens only unaltered', () => {
    const signature = signThinking('s', 'text', 'sys');
    expect(signature).toHaveLength(128);
    expect(verifyThinkingSignature('s', 'text', 'sys', signature)).toBe(true);
    expect(verifyThinkingSignature('s', 'text', 'other system', signature)).toBe(false);
    expect(verifyThinkingSignature('s', 'text ', 'sys', signature)).toBe(false);
    const data = sealRedactedThinking('s', 'hidden', 'sys');
    expect(openRedactedThinking('s', data, 'sys')).toBe('hidden');
    expect(openRedactedThinking('s', `${data.slice(0, -2)}AA`, 'sys')).toBeUndefined();
  });
});

describe('emulator rules (WIRE.md §2.6)', () => {
  it('requires x-api-key on the direct framing', async () => {
    const result = await post(emulator, priorTurnBody('claude-opus-4-8', 'x'), { 'anthropic-version': '2023-06-01' });
    expect(result.status).toBe(401);
    expect(result.body).toEqual({
      type: 'error',
      error: { type: 'authentication_error', message: 'x-api-key header is required' },
      request_id: expect.stringMatching(/^req_emu_/),
    });
  });

  it('rejects unknown keys with "Extra inputs are not permitted"', async () => {
    const result = await post(emulator, { ...priorTurnBody('claude-opus-4-8', 'x'), reasoning_effort: 'high' });
    expect(result.status).toBe(400);
    expect(errorMessage(result.body)).toBe('reasoning_effort: Extra inputs are not permitted');
  });

  it('a model that keeps prior thinking verifies it; an older model ignores prior-turn thinking (SPEC §9.1)', async () => {
    const opus = await post(emulator, priorTurnBody('claude-opus-4-8', 'forged'));
    expect(opus.status).toBe(400);
    expect(errorMessage(opus.body)).toBe('messages.1.content.0: Invalid `signature` in `thinking` block');
    const sonnet = await post(emulator, priorTurnBody('claude-sonnet-4-5', 'forged'));
    expect(sonnet.status).toBe(200);
  });

  it('uses the 2026-09 "bound to a different conversation" wording when asked', async () => {
    const result = await post(bound, priorTurnBody('claude-opus-4-8', signThinking('wrong-secret', 'prior', 'S')));
    expect(errorMessage(result.body)).toMatch(
      /^messages\.1\.content\.0: Invalid `signature` in `thinking` block\. The block is bound to a different conversation\./,
    );
  });

  it('an unsigned thinking block is a missing field', async () => {
    const body = priorTurnBody('claude-opus-4-8', 'x');
    (body.messages[1]!.content[0] as Record<string, unknown>)['signature'] = undefined;
    const result = await post(emulator, JSON.parse(JSON.stringify(body)));
    expect(errorMessage(result.body)).toBe('messages.1.content.0.thinking.signature: Field required');
  });

  it('the Bedrock framing requires a SigV4 Authorization header and the bedrock anthropic_version', async () => {
    const body = {
      anthropic_version: 'bedrock-2023-05-31',
      max_tokens: 100,
      messages: [{ role: 'user', content: 'hi' }],
    };
    const path = `/model/${encodeURIComponent('us.anthropic.claude-opus-4-8-v1:0')}/invoke`;
    const unsigned = await post(emulator, body, {}, path);
    expect(unsigned).toEqual({ status: 403, body: { message: 'Missing Authentication Token' } });
    const sigv4 = {
      authorization:
        'AWS4-HMAC-SHA256 Credential=AKID/20260101/us-east-1/bedrock/aws4_request, SignedHeaders=host, Signature=abc',
    };
    const withModel = await post(emulator, { ...body, model: 'x' }, sigv4, path);
    expect(withModel).toEqual({ status: 400, body: { message: 'model: Extra inputs are not permitted' } });
    const ok = await post(emulator, body, sigv4, path);
    expect(ok.status).toBe(200);
    expect((ok.body['content'] as { text: string }[])[0]?.text).toContain('You said: hi');
  });
});
