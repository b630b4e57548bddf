import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { AnthropicEmulator } from '../../src/emulators/anthropic-messages/anthropic-emulator.js';
import type { RunningChatEmulator } from '../../src/emulators/chat-completions/chat-emulator-types.js';
import {
  asSent,
  sentThinkingBlocks,
  signatureOf,
  storedThinkingBlocks,
  type Block,
  type MessageWithBlocks,
} from '../support/carriers.js';
import { chatJson, routeArgs, runHermes, showSession, useE2e, resumeArgs } from '../support/e2e.js';

/**
 * The real `hermes` binary: origin scoping when one session moves to
 * an OpenAI-compatible route and back (SPEC §23.2), the rejected-signature memory with its single
 * retry (SPEC §9.4), and the Bedrock InvokeModel framing (WIRE.md §2.5) with a tool loop and resume.
 */

const e2e = useE2e();

interface ShownSession {
  model_config: Record<string, unknown>;
  messages: (MessageWithBlocks & { origin?: { api: string } })[];
}

/** SPEC §9.4 fingerprint: SHA-256 hex of `type\0signature-or-data`. */
function fingerprint(block: Block): string {
  return createHash('sha256')
    .update(`${String(block['type'])}\0${signatureOf(block)}`)
    .digest('hex');
}

function anthropicRouteFor(emulator: AnthropicEmulator): string[] {
  return routeArgs('anthropic', 'claude-opus-4-8', emulator.baseUrl, 'x');
}

function openRouterRouteFor(emulator: RunningChatEmulator): string[] {
  return routeArgs('openrouter', 'anthropic/claude-opus-4.8', emulator.baseUrl, 'sk-or', 'chat_completions');
}

describe('one session across routes (SPEC §23.2 origin scoping)', () => {
  it('OpenRouter (strict persona) receives no Anthropic signature and its own details verify; back on Anthropic the Anthropic blocks replay byte-identical and the OpenRouter turns carry none', async () => {
    const anthropic = await e2e.anthropic();
    const chat = await e2e.chat({ persona: 'openrouter' });
    const sandbox = e2e.sandbox();
    const first = await chatJson(sandbox, ['-q', 'hello there', ...anthropicRouteFor(anthropic)]);
    const anthropicSigned = storedThinkingBlocks(await showSession<ShownSession>(sandbox, first.session_id)).flat();
    expect(anthropicSigned.map((block) => block['type'])).toEqual(['thinking']);

    const switched = await chatJson(sandbox, [
      ...resumeArgs(first.session_id, 'read the file notes.txt'),
      ...openRouterRouteFor(chat),
    ]);
    // The persona verifies the signed reasoning_details it issued on the loop's second request.
    expect(switched.answer).toContain('alpha beta');
    expect(chat.requests.map((received) => received.status)).toEqual([200, 200]);
    for (const received of chat.requests)
      for (const block of anthropicSigned) expect(received.raw).not.toContain(signatureOf(block));

    const before = anthropic.requests.length;
    const back = await chatJson(sandbox, [...resumeArgs(first.session_id, 'thanks'), ...anthropicRouteFor(anthropic)]);
    expect(back.answer).toContain('You said: thanks');
    const session = await showSession<ShownSession>(sandbox, first.session_id);
    expect(
      session.messages.filter((message) => message.role === 'assistant').map((message) => message.origin?.api),
    ).toEqual(['anthropic_messages', 'chat_completions', 'chat_completions', 'anthropic_messages']);
    const request = anthropic.requests[before];
    // The Anthropic-issued turn replays verbatim; the OpenRouter-issued turns carry no signed block.
    expect(sentThinkingBlocks(request?.body)).toEqual(asSent([[anthropicSigned[0] ?? {}], [], []]));
    expect(request?.raw).toContain(`"signature":${JSON.stringify(signatureOf(anthropicSigned[0] ?? {}))}`);
    expect(anthropic.requests.map((received) => received.status)).toEqual([200, 200]);
  });

  it('a tool-loop session moved to an OpenAI-compatible route sends its readable reasoning but no signature, and moved back replays every block byte-identical', async () => {
    const anthropic = await e2e.anthropic();
    // The `local` persona, not `openrouter`: the openrouter persona 400s any earlier tool-call turn
    // without OpenRouter-issued details, which WIRE.md §2.4 / §2.6a say Anthropic only requires of
    // the in-flight loop's final assistant turn (reported to the chat emulator's owner).
    const chat = await e2e.chat({ persona: 'local' });
    const sandbox = e2e.sandbox();
    const first = await chatJson(sandbox, ['-q', 'read the file notes.txt', ...anthropicRouteFor(anthropic)]);
    const anthropicSigned = storedThinkingBlocks(await showSession<ShownSession>(sandbox, first.session_id)).flat();
    expect(anthropicSigned.length).toBe(2);

    const switched = await chatJson(sandbox, [...resumeArgs(first.session_id, 'thanks'), ...openRouterRouteFor(chat)]);
    // The readable thinking travelled (the model saw both earlier turns' reasoning intact).
    expect(switched.answer).toContain('Reasoning continuity: intact (2/2).');
    expect(chat.requests.length).toBe(1);
    for (const block of anthropicSigned) expect(chat.requests[0]?.raw).not.toContain(signatureOf(block));

    const before = anthropic.requests.length;
    await runHermes(
      ['chat', '--resume', first.session_id, '-q', 'and now?', '--json', ...anthropicRouteFor(anthropic)],
      sandbox,
    );
    const request = anthropic.requests[before];
    expect(sentThinkingBlocks(request?.body)).toEqual(
      asSent([[anthropicSigned[0] ?? {}], [anthropicSigned[1] ?? {}], []]),
    );
    for (const block of anthropicSigned)
      expect(request?.raw).toContain(`"signature":${JSON.stringify(signatureOf(block))}`);
    expect([...anthropic.requests, ...chat.requests].every((received) => received.status === 200)).toBe(true);
  });
});

describe('a forced signature rejection (SPEC §9.4)', () => {
  it('teaches the fingerprints, retries exactly once, and a later --resume never sends those blocks again', async () => {
    // Requests 1–2 are the first tool loop; request 3 (the first resumed request) is rejected.
    const anthropic = await e2e.anthropic({ rejectSignaturesOnRequests: [3] });
    const sandbox = e2e.sandbox();
    const route = routeArgs('anthropic', 'claude-opus-4-8', anthropic.baseUrl, 'x');
    const first = await chatJson(sandbox, ['-q', 'read the file notes.txt', ...route]);
    const rejectedBlocks = storedThinkingBlocks(await showSession<ShownSession>(sandbox, first.session_id)).flat();
    expect(rejectedBlocks.length).toBe(2);

    const retried = await chatJson(sandbox, ['--resume', first.session_id, '-q', 'thanks', ...route]);
    expect(retried.answer).toContain('You said: thanks');
    expect(anthropic.requests.map((received) => received.status)).toEqual([200, 200, 400, 200]);
    // The retry dropped exactly the rejected blocks.
    expect(sentThinkingBlocks(anthropic.requests[2]?.body)).toEqual(
      asSent([[rejectedBlocks[0] ?? {}], [rejectedBlocks[1] ?? {}]]),
    );
    expect(sentThinkingBlocks(anthropic.requests[3]?.body)).toEqual([[], []]);

    const session = await showSession<ShownSession>(sandbox, first.session_id);
    expect(session.model_config['_anthropic_rejected_thinking']).toEqual(rejectedBlocks.map(fingerprint).sort());

    await runHermes(['chat', '--resume', first.session_id, '-q', 'once more', '--json', ...route], sandbox);
    const later = anthropic.requests[4];
    expect(later?.status).toBe(200);
    for (const block of rejectedBlocks) expect(later?.raw).not.toContain(signatureOf(block));
    // The answer issued after the retry is not remembered as rejected, so it replays.
    const fresh = storedThinkingBlocks(await showSession<ShownSession>(sandbox, first.session_id))[2] ?? [];
    expect(sentThinkingBlocks(later?.body)).toEqual(asSent([[], [], fresh]));
    expect(anthropic.requests.length).toBe(5);
  });
});

describe('a forced signature rejection inside the in-flight tool loop (SPEC §9.4, WIRE.md §2.6a)', () => {
  it('the single retry goes without thinking (the loop turn lost its only block), succeeds, and thinking is back on the next turn', async () => {
    // Request 2 answers the tool result; its tool-call turn's signature is rejected.
    const anthropic = await e2e.anthropic({ rejectSignaturesOnRequests: [2] });
    const sandbox = e2e.sandbox();
    const route = anthropicRouteFor(anthropic);
    const first = await chatJson(sandbox, ['-q', 'read the file notes.txt', ...route]);
    const sessionId = first.session_id;
    expect(first.answer).toContain('alpha beta');
    expect(anthropic.requests.map((received) => received.status)).toEqual([200, 400, 200]);

    const rejected = storedThinkingBlocks(await showSession<ShownSession>(sandbox, sessionId))[0] ?? [];
    expect(rejected.map((block) => block['type'])).toEqual(['thinking']);
    const retry = anthropic.requests[2]?.body as Block;
    // Anthropic: "To avoid this requirement, disable `thinking`" — the retry carries no thinking at all.
    expect(retry['thinking']).toBeUndefined();
    expect(retry['messages']).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'read the file notes.txt' }] },
      {
        role: 'assistant',
        content: [{ type: 'tool_use', id: 'toolu_call_1_1', name: 'read_file', input: { path: 'notes.txt' } }],
      },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_call_1_1', content: 'alpha beta\n' }] },
    ]);
    expect((await showSession<ShownSession>(sandbox, sessionId)).model_config['_anthropic_rejected_thinking']).toEqual(
      rejected.map(fingerprint),
    );

    await chatJson(sandbox, ['--resume', sessionId, '-q', 'thanks', ...route]);
    const later = anthropic.requests[3];
    expect(later?.status).toBe(200);
    expect((later?.body as Block)['thinking']).toEqual({ type: 'adaptive' });
    for (const block of rejected) expect(later?.raw).not.toContain(signatureOf(block));
    expect(anthropic.requests.length).toBe(4);
  });
});

describe('Bedrock InvokeModel framing of the Anthropic transport (WIRE.md §2.5)', () => {
  it('a tool loop and a resume through SigV4 + AWS event-stream framing, zero errors, signatures byte-identical', async () => {
    const anthropic = await e2e.anthropic();
    const sandbox = e2e.sandbox();
    const env = { AWS_ACCESS_KEY_ID: 'test', AWS_SECRET_ACCESS_KEY: 'test', AWS_REGION: 'us-east-1' };
    const model = 'anthropic.claude-opus-4-8-v1:0';
    const route = [
      '--provider',
      'bedrock',
      '--api',
      'anthropic_messages',
      '--model',
      model,
      '--base-url',
      anthropic.baseUrl,
    ];
    const first = await chatJson(sandbox, ['-q', 'read the file notes.txt', ...route], env);
    expect(first.tool_calls.map((call) => call.name)).toEqual(['read_file']);
    expect(first.answer).toContain('alpha beta');
    const resumed = await chatJson(sandbox, ['--resume', first.session_id, '-q', 'thanks', ...route], env);
    expect(resumed.answer).toContain('Reasoning continuity: intact (2/2).');

    const path = `/model/${encodeURIComponent(model)}/invoke-with-response-stream`;
    expect(anthropic.requests.map((received) => [received.path, received.status])).toEqual([
      [path, 200],
      [path, 200],
      [path, 200],
    ]);
    expect(anthropic.requests[0]?.headers['authorization']).toBe('REDACTED');
    const stored = storedThinkingBlocks(await showSession<ShownSession>(sandbox, first.session_id));
    const request = anthropic.requests[2];
    expect((request?.body as Block)['anthropic_version']).toBe('bedrock-2023-05-31');
    expect(sentThinkingBlocks(request?.body)).toEqual(asSent(stored.slice(0, 2)));
    for (const block of stored.slice(0, 2).flat())
      expect(request?.raw).toContain(`"signature":${JSON.stringify(signatureOf(block))}`);
  });
});
