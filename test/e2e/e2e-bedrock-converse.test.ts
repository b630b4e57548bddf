import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { REDACTED_TRIGGER } from '../../src/emulators/bedrock-converse/bedrock-converse-emulator-rules.js';
import { stateDbPath } from '../../src/storage/store-paths.js';
import { chatJson, type ChatJson, type Sandbox, showSession, useE2e } from '../support/e2e.js';

/**
 * (SPEC §10, WIRE.md §3): the real `hermes` binary against the Bedrock
 * emulator (Converse JSON + ConverseStream event-stream framing, SigV4 from AWS env credentials).
 * Claude tool loop + `--resume` with signatures byte-identical, also after the
 * `bedrock_content_blocks` sidecar is deleted; the per-model policy (`strip` for DeepSeek R1,
 * `unsigned` think-tag text for Qwen and Kimi) checked on the bytes the emulator received.
 */

const e2e = useE2e();

const AWS_ENV = { AWS_ACCESS_KEY_ID: 'test', AWS_SECRET_ACCESS_KEY: 'test', AWS_REGION: 'us-east-1' };

type Block = Record<string, unknown>;

interface ShownMessage {
  role: string;
  reasoning_content?: string;
  reasoning_details?: Block[];
  bedrock_content_blocks?: Block[];
}

interface ShownSession {
  messages: ShownMessage[];
}

function assistantsOf(session: ShownSession): ShownMessage[] {
  return session.messages.filter((message) => message.role === 'assistant');
}

/** `reasoningContent` blocks of every assistant message in a Converse request body, in order. */
function sentReasoningBlocks(body: unknown): Block[][] {
  const messages = (body as { messages?: { role: string; content: Block[] }[] }).messages ?? [];
  return messages
    .filter((message) => message.role === 'assistant')
    .map((message) => message.content.filter((block) => 'reasoningContent' in block));
}

/** Stored `reasoningContent` blocks of every assistant turn (the sidecar), in order. */
function storedReasoningBlocks(session: ShownSession): Block[][] {
  return assistantsOf(session).map((message) =>
    (message.bedrock_content_blocks ?? []).filter((block) => 'reasoningContent' in block),
  );
}

/** The readable text of an assistant message's blocks in a Converse request. */
function sentTexts(body: unknown): string[][] {
  const messages = (body as { messages?: { role: string; content: Block[] }[] }).messages ?? [];
  return messages
    .filter((message) => message.role === 'assistant')
    .map((message) =>
      message.content.filter((block) => typeof block['text'] === 'string').map((block) => String(block['text'])),
    );
}

function routeFor(model: string, baseUrl: string): string[] {
  return ['--provider', 'bedrock', '--model', model, '--base-url', baseUrl];
}

function chat(sandbox: Sandbox, args: string[]): Promise<ChatJson> {
  return chatJson(sandbox, args, AWS_ENV);
}

const CLAUDE = 'us.anthropic.claude-sonnet-4-5-20250929-v1:0';

describe('Claude on Bedrock Converse: tool loop, --resume, and the sidecar deleted', () => {
  it('signed reasoning replays byte-identical from the sidecar, then from Anthropic-shaped reasoning_details once the sidecar column is NULL', async () => {
    const emulator = await e2e.bedrock();
    const sandbox = e2e.sandbox();
    const route = routeFor(CLAUDE, emulator.baseUrl);
    const first = await chat(sandbox, ['-q', 'read the file notes.txt', ...route]);
    expect(first.tool_calls.map((call) => call.name)).toEqual(['read_file']);
    expect(first.answer).toContain('Reasoning continuity: intact (1/1).');

    const resumed = await chat(sandbox, ['--resume', first.session_id, '-q', 'thanks', ...route]);
    expect(resumed.answer).toContain('Reasoning continuity: intact (2/2).');
    const stored = storedReasoningBlocks(await showSession<ShownSession>(sandbox, first.session_id));
    expect(stored.map((blocks) => blocks.length)).toEqual([1, 1, 1]);
    const request = emulator.requests[2];
    expect(sentReasoningBlocks(request?.body)).toEqual(stored.slice(0, 2));
    for (const block of stored.slice(0, 2).flat()) {
      const signature = (block['reasoningContent'] as { reasoningText: { signature: string } }).reasoningText.signature;
      expect(request?.raw).toContain(`"signature":${JSON.stringify(signature)}`);
    }

    // Reload without the sidecar: only reasoning_details (Anthropic-shaped) remain.
    const database = new Database(stateDbPath(sandbox.home));
    const changed = database
      .prepare('UPDATE messages SET bedrock_content_blocks = NULL WHERE session_id = ?')
      .run(first.session_id).changes;
    database.close();
    expect(changed).toBeGreaterThan(0);
    const reloaded = await showSession<ShownSession>(sandbox, first.session_id);
    expect(assistantsOf(reloaded).every((message) => message.bedrock_content_blocks === undefined)).toBe(true);
    const details = assistantsOf(reloaded).map((message) => message.reasoning_details ?? []);
    expect(details.map((entries) => entries.map((entry) => entry['type']))).toEqual([
      ['thinking'],
      ['thinking'],
      ['thinking'],
    ]);

    const again = await chat(sandbox, ['--resume', first.session_id, '-q', 'once more', ...route]);
    expect(again.answer).toContain('Reasoning continuity: intact (3/3).');
    const afterReload = emulator.requests[3];
    // The rebuilt blocks equal the sidecar blocks that were deleted.
    expect(sentReasoningBlocks(afterReload?.body)).toEqual(stored);
    expect(
      details.map((entries) =>
        entries.map((entry) => ({
          reasoningContent: { reasoningText: { text: entry['thinking'], signature: entry['signature'] } },
        })),
      ),
    ).toEqual(stored);
    expect(emulator.requests.map((received) => received.status)).toEqual([200, 200, 200, 200]);
  });

  it('redacted reasoning round-trips as a separate redactedContent block, with and without the sidecar (SPEC §10)', async () => {
    const emulator = await e2e.bedrock();
    const sandbox = e2e.sandbox();
    const route = routeFor(CLAUDE, emulator.baseUrl);
    const first = await chat(sandbox, ['-q', `read the file notes.txt ${REDACTED_TRIGGER}`, ...route]);
    expect(first.tool_calls.map((call) => call.name)).toEqual(['read_file']);
    const stored = storedReasoningBlocks(await showSession<ShownSession>(sandbox, first.session_id));
    expect(stored.flat().map((block) => Object.keys(block['reasoningContent'] as Block))).toEqual([
      ['redactedContent'],
      ['redactedContent'],
    ]);
    await chat(sandbox, ['--resume', first.session_id, '-q', 'thanks', ...route]);
    expect(sentReasoningBlocks(emulator.requests[2]?.body)).toEqual(stored);

    const database = new Database(stateDbPath(sandbox.home));
    database.prepare('UPDATE messages SET bedrock_content_blocks = NULL WHERE session_id = ?').run(first.session_id);
    database.close();
    await chat(sandbox, ['--resume', first.session_id, '-q', 'once more', ...route]);
    expect(sentReasoningBlocks(emulator.requests[3]?.body).slice(0, 2)).toEqual(stored);
    expect(emulator.requests.map((received) => received.status)).toEqual([200, 200, 200, 200]);
  });
});

describe('per-model replay policy through the CLI (SPEC §10, WIRE.md §3.4)', () => {
  it('DeepSeek R1 (`strip`): the model reasons, and no prior reasoning goes back in any form — no ValidationException', async () => {
    const emulator = await e2e.bedrock();
    const sandbox = e2e.sandbox();
    const route = routeFor('us.deepseek.r1-v1:0', emulator.baseUrl);
    const first = await chat(sandbox, ['-q', 'read the file notes.txt', ...route]);
    expect(first.tool_calls.map((call) => call.name)).toEqual(['read_file']);
    await chat(sandbox, ['--resume', first.session_id, '-q', 'thanks', ...route]);
    const reasoning = assistantsOf(await showSession<ShownSession>(sandbox, first.session_id)).map(
      (message) => message.reasoning_content ?? '',
    );
    expect(reasoning.every((text) => text.includes('[nonce:'))).toBe(true);
    expect(emulator.requests.map((received) => received.status)).toEqual([200, 200, 200]);
    for (const received of emulator.requests) {
      expect(sentReasoningBlocks(received.body).flat()).toEqual([]);
      for (const text of reasoning) expect(received.raw).not.toContain(JSON.stringify(text).slice(1, -1));
    }
  });

  it.each([
    ['Qwen', 'qwen.qwen3-32b-v1:0'],
    ['Kimi', 'moonshot.kimi-k2-thinking'],
  ])(
    '%s (`unsigned`): prior reasoning goes back as <think> text in its original turn, never as reasoningContent',
    async (_name, model) => {
      const emulator = await e2e.bedrock();
      const sandbox = e2e.sandbox();
      const route = routeFor(model, emulator.baseUrl);
      const first = await chat(sandbox, ['-q', 'read the file notes.txt', ...route]);
      expect(first.tool_calls.map((call) => call.name)).toEqual(['read_file']);
      await chat(sandbox, ['--resume', first.session_id, '-q', 'thanks', ...route]);
      const assistants = assistantsOf(await showSession<ShownSession>(sandbox, first.session_id));
      const reasoning = assistants.map((message) => message.reasoning_content ?? '');
      expect(reasoning.every((text) => text.includes('[nonce:'))).toBe(true);
      const request = emulator.requests[2];
      expect(sentReasoningBlocks(request?.body).flat()).toEqual([]);
      expect(sentTexts(request?.body)).toEqual([
        [`<think>\n${reasoning[0]}\n</think>`],
        [`<think>\n${reasoning[1]}\n</think>`, first.answer],
      ]);
      expect(emulator.requests.map((received) => received.status)).toEqual([200, 200, 200]);
    },
  );
});
