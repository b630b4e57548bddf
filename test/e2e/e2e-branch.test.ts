import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../../src/core/json.js';
import type { AssistantMessage, Message } from '../../src/core/message.js';
import type { OriginStamp } from '../../src/core/origin.js';
import { openRouterReasoningDetails } from '../../src/emulators/chat-completions/chat-persona-openrouter.js';
import { sealReasoning } from '../../src/emulators/shared/scripted-model.js';
import { openSqliteSessionStore } from '../../src/storage/sqlite-session-store.js';
import { stateDbPath } from '../../src/storage/store-paths.js';
import { assistantsOf, chatJson, parseJson, routeArgs, runHermes, showSession, useE2e } from '../support/e2e.js';

/**
 * (SPEC §17): `hermes sessions branch` copies every message with every reasoning
 * carrier, the origin stamp and `finish_reason` into a child whose parent is the source, and
 * `--resume` of the child replays them to the route exactly as the parent would.
 */

const e2e = useE2e();

interface ShownSession {
  id: string;
  title: string | null;
  parent_session_id: string | null;
  children: string[];
  model_config: Record<string, unknown>;
  messages: Message[];
}

const MODEL = 'anthropic/claude-sonnet-4.5';

/** The private carrier record (SPEC §7.1) with every field it can hold. */
const CARRIER_RECORD: JsonObject = {
  type: 'hermes.native_assistant',
  extra_content: { google: { thought_signature: 'R2VtaW5pU2lnbmF0dXJl' } },
  reasoning_opaque: 'b3BhcXVlLWNvcGlsb3QtYmxvYg==',
  reasoning_text: 'copilot readable text',
};

/**
 * A history holding every carrier kind SPEC §2 names: RC "" and " ", reasoning, OpenRouter
 * reasoning_details (signed text + encrypted entry) beside the private record, Anthropic blocks
 * with a signature and redacted_thinking, Bedrock blocks, Responses reasoning items with
 * encrypted_content and a compaction checkpoint, Responses message items, Gemini native parts with a thoughtSignature, a tool call with extra_content, origin stamps from
 * five wire APIs, finish reasons, and the private usage key.
 */
function everyCarrierHistory(host: string): Message[] {
  const openRouter: OriginStamp = { api: 'chat_completions', provider: 'openrouter', host, model: MODEL };
  const toolThinking = sealReasoning('Turn 1: to answer "read the file notes.txt" I should call read_file.');
  const answerThinking = sealReasoning('Turn 2: the tool answered; I will summarise it.');
  return [
    { role: 'system', content: 'You are a careful agent.' },
    { role: 'user', content: 'read the file notes.txt', timestamp: 1_700_000_000_000 },
    {
      role: 'assistant',
      content: null,
      reasoning: toolThinking,
      reasoning_content: toolThinking,
      reasoning_details: [...openRouterReasoningDetails(toolThinking), CARRIER_RECORD],
      tool_calls: [
        {
          id: 'call_1_1',
          type: 'function',
          function: { name: 'read_file', arguments: '{"path":"notes.txt"}' },
          extra_content: { google: { thought_signature: 'Q2FsbFNpZ25hdHVyZQ==' } },
        },
      ],
      finish_reason: 'tool_calls',
      origin: openRouter,
      timestamp: 1_700_000_000_100,
      _usage: { input_tokens: 120, output_tokens: 40 },
    },
    { role: 'tool', tool_call_id: 'call_1_1', tool_name: 'read_file', content: 'alpha beta\n' },
    {
      role: 'assistant',
      content: 'The tool returned: alpha beta',
      reasoning: answerThinking,
      reasoning_content: '',
      reasoning_details: openRouterReasoningDetails(answerThinking),
      finish_reason: 'stop',
      origin: openRouter,
    },
    { role: 'user', content: 'and from Claude directly?' },
    {
      role: 'assistant',
      content: 'Claude answered.',
      reasoning: sealReasoning('Turn 3: readable thinking.'),
      reasoning_content: ' ',
      anthropic_content_blocks: [
        { type: 'thinking', thinking: 'Turn 3: readable thinking.', signature: 'EqQBCkYIAxgCIkD+signed==' },
        { type: 'redacted_thinking', data: 'EmwKAhgBEgy3redacted+bytes==' },
        { type: 'text', text: 'Claude answered.' },
      ],
      finish_reason: 'end_turn',
      origin: { api: 'anthropic_messages', provider: 'anthropic', host: 'api.anthropic.com', model: 'claude-opus-4-8' },
    },
    { role: 'user', content: 'and from Bedrock?' },
    {
      role: 'assistant',
      content: 'Bedrock answered.',
      reasoning: sealReasoning('Turn 4: bedrock thinking.'),
      bedrock_content_blocks: [
        { reasoningContent: { reasoningText: { text: 'Turn 4: bedrock thinking.', signature: 'YmVkcm9jay1zaWc=' } } },
        { reasoningContent: { redactedContent: 'cmVkYWN0ZWQtYmVkcm9jaw==' } },
        { text: 'Bedrock answered.' },
      ],
      finish_reason: 'end_turn',
      origin: {
        api: 'bedrock_converse',
        provider: 'bedrock',
        host: 'bedrock-runtime.us-east-1.amazonaws.com',
        model: 'us.anthropic.claude-sonnet-4-5-20250929-v1:0',
      },
    },
    { role: 'user', content: 'and from Responses?' },
    {
      role: 'assistant',
      content: 'Responses answered.',
      reasoning: sealReasoning('Turn 5: summary text.'),
      codex_reasoning_items: [
        {
          type: 'reasoning',
          id: 'rs_0123',
          encrypted_content: 'gAAAAABencrypted-responses-bytes==',
          summary: [{ type: 'summary_text', text: 'Turn 5: summary text.' }],
        },
        { type: 'compaction', encrypted_content: 'gAAAAABcheckpoint==' },
      ],
      codex_message_items: [{ type: 'message', id: 'msg_0456', phase: 'final_answer' }],
      finish_reason: 'completed',
      origin: { api: 'codex_responses', provider: 'openai-responses', host: 'api.openai.com', model: 'gpt-5.4' },
    },
    { role: 'user', content: 'and from Gemini?' },
    {
      role: 'assistant',
      content: 'Gemini answered.',
      reasoning: sealReasoning('Turn 6: gemini thinking.'),
      // Gemini native keeps its parts verbatim beside the message (core message key `gemini_content_parts`).
      gemini_content_parts: [
        { text: 'Turn 6: gemini thinking.', thought: true },
        { text: 'Gemini answered.', thoughtSignature: 'Z2VtaW5pLXBhcnQtc2lnbmF0dXJl' },
      ],
      finish_reason: 'STOP',
      origin: {
        api: 'gemini',
        provider: 'google',
        host: 'generativelanguage.googleapis.com',
        model: 'gemini-3-pro-preview',
      },
    } as AssistantMessage,
  ];
}

/** UTF-8 bytes of the string found at `path` inside `value`. */
function bytesAt(value: unknown, ...path: (string | number)[]): number {
  let cursor: unknown = value;
  for (const key of path) cursor = (cursor as Record<string | number, unknown> | undefined)?.[key];
  if (typeof cursor !== 'string') throw new Error(`no string at ${path.join('.')}`);
  return Buffer.byteLength(cursor, 'utf8');
}

/**
 * The opaque bytes each assistant turn of {@link everyCarrierHistory} holds, listed by hand from
 * where each provider puts them (not by walking keys, which is what the implementation does).
 */
function expectedOpaqueBytes(history: readonly Message[]): number[] {
  const [toolTurn, answer, claude, bedrock, responses, gemini] = history.filter(
    (message) => message.role === 'assistant',
  );
  return [
    bytesAt(toolTurn, 'reasoning_details', 0, 'signature') +
      bytesAt(toolTurn, 'reasoning_details', 1, 'data') +
      bytesAt(CARRIER_RECORD, 'extra_content', 'google', 'thought_signature') +
      bytesAt(CARRIER_RECORD, 'reasoning_opaque') +
      bytesAt(toolTurn, 'tool_calls', 0, 'extra_content', 'google', 'thought_signature'),
    bytesAt(answer, 'reasoning_details', 0, 'signature') + bytesAt(answer, 'reasoning_details', 1, 'data'),
    bytesAt(claude, 'anthropic_content_blocks', 0, 'signature') +
      bytesAt(claude, 'anthropic_content_blocks', 1, 'data'),
    bytesAt(bedrock, 'bedrock_content_blocks', 0, 'reasoningContent', 'reasoningText', 'signature') +
      bytesAt(bedrock, 'bedrock_content_blocks', 1, 'reasoningContent', 'redactedContent'),
    bytesAt(responses, 'codex_reasoning_items', 0, 'encrypted_content') +
      bytesAt(responses, 'codex_reasoning_items', 1, 'encrypted_content'),
    bytesAt(gemini, 'gemini_content_parts', 1, 'thoughtSignature'),
  ];
}

describe('hermes sessions branch (SPEC §17)', () => {
  it('copies every carrier kind verbatim into a child, and --resume of the child replays them', async () => {
    const emulator = await e2e.chat({ persona: 'openrouter' });
    const sandbox = e2e.sandbox();
    const host = new URL(emulator.baseUrl).hostname;
    const history = everyCarrierHistory(host);
    const store = openSqliteSessionStore(stateDbPath(sandbox.home));
    let sourceId: string;
    try {
      const session = await store.createSession({
        title: 'every carrier',
        provider: 'openrouter',
        model: MODEL,
        baseUrl: emulator.baseUrl,
        api: 'chat_completions',
        modelConfig: { reasoning_rejected_carriers: [['openrouter', 'other.example', MODEL, ['reasoning']]] },
      });
      sourceId = session.id;
      await store.appendMessages(sourceId, history);
    } finally {
      await store.close();
    }

    const branched = await runHermes(['sessions', 'branch', sourceId, '--title', 'side quest', '--json'], sandbox);
    expect(branched.code, branched.stderr).toBe(0);
    const created = parseJson<{ session_id: string; title: string; parent_session_id: string }>(branched);
    expect(created).toEqual({ session_id: created.session_id, title: 'side quest', parent_session_id: sourceId });

    const parent = await showSession<ShownSession>(sandbox, sourceId);
    const child = await showSession<ShownSession>(sandbox, created.session_id);
    // The stored history round-trips exactly, and the child's messages are the parent's.
    expect(parent.messages).toEqual(history);
    expect(child.messages).toEqual(parent.messages);
    expect(child.parent_session_id).toBe(sourceId);
    expect(child.title).toBe('side quest');
    expect(parent.children).toEqual([created.session_id]);
    expect(child.model_config).toEqual(parent.model_config);

    // The readable view reports the lineage and the opaque bytes each turn keeps (SPEC §23.5).
    const readable = await runHermes(['sessions', 'show', created.session_id], sandbox);
    expect(readable.stdout).toContain(`lineage   parent ${sourceId}; children -`);
    const reported = [...readable.stdout.matchAll(/opaque bytes kept: (\d+)/g)].map((match) => Number(match[1]));
    expect(reported).toEqual(expectedOpaqueBytes(history));

    // --resume of the child: the first request replays the parent's OpenRouter details byte for byte.
    const route = routeArgs('openrouter', MODEL, emulator.baseUrl);
    const answer = await chatJson(sandbox, ['--resume', created.session_id, '-q', 'read the file notes.txt', ...route]);
    expect(emulator.requests.map((request) => request.status)).toEqual([200, 200]);
    const first = emulator.requests[0];
    const sent = assistantsOf(first?.body);
    const storedOpenRouter = history.filter(
      (message): message is AssistantMessage =>
        message.role === 'assistant' && message.origin?.provider === 'openrouter',
    );
    for (const [index, message] of storedOpenRouter.entries()) {
      // The private record never travels off its route (SPEC §7.5); the provider entries travel verbatim.
      const providerEntries = (message.reasoning_details ?? []).filter(
        (entry) => entry['type'] !== 'hermes.native_assistant',
      );
      expect(sent[index]?.['reasoning_details']).toEqual(providerEntries);
      expect(first?.raw).toContain(JSON.stringify(providerEntries));
    }
    // The child replays exactly what the parent would: the resumed request (minus the new user
    // message) equals the dry run of the PARENT session on the same route.
    const preview = parseJson<{ messages: unknown[] }>(
      await runHermes(['replay', 'preview', '--session', sourceId, '--json'], sandbox),
    );
    const firstBody = first?.body as { messages: unknown[] };
    expect(firstBody.messages.slice(0, -1)).toEqual(preview.messages);
    expect(firstBody.messages.at(-1)).toEqual({ role: 'user', content: 'read the file notes.txt' });
    expect(first?.raw).not.toContain('hermes.native_assistant');
    // Foreign opaque bytes never reach OpenRouter (SPEC §23.2).
    for (const opaque of ['EqQBCkYIAxgCIkD+signed==', 'YmVkcm9jay1zaWc=', 'gAAAAABencrypted-responses-bytes=='])
      expect(first?.raw).not.toContain(opaque);
    expect(answer.session_id).toBe(created.session_id);
    // The scripted model re-checks every earlier turn's reasoning nonce: all came back intact.
    expect(answer.answer).toContain('Reasoning continuity: intact (7/7).');
    // The parent is untouched by the child's turn.
    const after = await showSession<ShownSession>(sandbox, sourceId);
    expect(after.messages).toEqual(history);
  });
});
