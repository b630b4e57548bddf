/**
 * SPEC §23.5, §25.5 end to end from recorded traffic: a real Anthropic, Bedrock Converse and
 * Gemini response, decoded by the transports' own decoders and stored as they would be after a
 * turn, report each opaque carrier once in `hermes sessions show`, by the bytes that travel, and
 * that number is the one `hermes replay preview --explain` prints for the carrier on its issuer's
 * route (and the request log, which formats the same decisions). The decoders store a signature in
 * two places (the content-block sidecar and `reasoning_details`, or a Gemini part and its tool
 * call); counting by key reported it twice.
 */
import { describe, expect, it } from 'vitest';
import type { Message } from '../../src/core/message.js';
import type { OriginStamp } from '../../src/core/origin.js';
import type { Route } from '../../src/core/route.js';
import type { StreamEvent } from '../../src/core/stream-event.js';
import { summariseDecisions } from '../../src/runtime/runtime-request-log.js';
import { openSqliteSessionStore } from '../../src/storage/sqlite-session-store.js';
import { stateDbPath } from '../../src/storage/store-paths.js';
import { AnthropicStreamDecoder } from '../../src/transports/anthropic-messages/anthropic-messages-decode.js';
import { BedrockConverseStreamDecoder } from '../../src/transports/bedrock-converse/bedrock-converse-decode.js';
import { GeminiDecoder } from '../../src/transports/gemini/gemini-decode.js';
import type { GeminiResponse } from '../../src/transports/gemini/gemini-wire.js';
import { prepareRequest } from '../../src/transports/transport-prepare.js';
import { readCassette, readFixtureText } from '../support/fixtures.js';
import { runHermes, useE2e, type Sandbox } from '../support/e2e.js';
import { readStreamEvents } from '../transports/bedrock-converse/bedrock-converse-fixtures.js';

const e2e = useE2e();

/** The assistant message a finished stream assembled. */
function finished(events: readonly StreamEvent[]): Message {
  const finish = events.find((event) => event.type === 'finish');
  if (finish?.type !== 'finish') throw new Error('the recorded stream did not finish');
  return finish.message;
}

/** Every value of `key` in a fixture's raw text, measured as UTF-8 bytes (read off the recording, not the decoder). */
function recordedBytes(fixture: string, key: string): number[] {
  const pattern = new RegExp(`\\\\?"${key}\\\\?":\\s*\\\\?"([A-Za-z0-9+/=_-]{40,})\\\\?"`, 'g');
  return [...readFixtureText(fixture).matchAll(pattern)].map((match) => Buffer.byteLength(match[1] ?? '', 'utf8'));
}

interface Recorded {
  name: string;
  fixture: string;
  route: Route;
  history: Message[];
  /** The `--explain` line of the carrier on its issuer's route. */
  explained: RegExp;
  /** The opaque bytes of the recording: what travels once. */
  bytes: number;
}

function anthropicRecording(): Recorded {
  const fixture = 'anthropic/pydantic-thinking-part-stream.cassette.json';
  const model = 'claude-sonnet-4-0';
  const origin: OriginStamp = { api: 'anthropic_messages', provider: 'anthropic', host: 'api.anthropic.com', model };
  const decoder = new AnthropicStreamDecoder(origin);
  const body = String(readCassette(fixture)[0]?.response.body);
  const events: StreamEvent[] = [];
  for (const frame of body.split(/\r?\n\r?\n/)) {
    const data = frame.split('\n').find((line) => line.startsWith('data: '));
    if (data) events.push(...decoder.push(data.slice('data: '.length)));
  }
  events.push(...decoder.end());
  const [signature] = recordedBytes(fixture, 'signature');
  return {
    name: 'Anthropic',
    fixture,
    route: { api: 'anthropic_messages', provider: 'anthropic', model },
    history: [{ role: 'user', content: 'How do I cross the street?' }, finished(events)],
    explained: /kept thinking \(signed: same issuer, (\d+) B\)/,
    bytes: signature ?? 0,
  };
}

function bedrockRecording(): Recorded {
  const fixture = 'bedrock-converse/pydantic-thinking-part-stream.cassette.json';
  const route: Route = {
    api: 'bedrock_converse',
    provider: 'bedrock',
    model: 'us.anthropic.claude-sonnet-4-20250514-v1:0',
    baseUrl: 'https://bedrock-runtime.us-east-1.amazonaws.com',
  };
  const decoder = new BedrockConverseStreamDecoder(route);
  const events: StreamEvent[] = [];
  for (const event of readStreamEvents('pydantic-thinking-part-stream.cassette.json'))
    events.push(...decoder.push(event));
  events.push(...decoder.end());
  const [signature] = recordedBytes(fixture, 'signature');
  return {
    name: 'Bedrock Converse',
    fixture,
    route,
    history: [{ role: 'user', content: 'Hello' }, finished(events)],
    explained: /kept reasoningText \(signed route, same issuer, (\d+) B\)/,
    bytes: signature ?? 0,
  };
}

function geminiRecording(): Recorded {
  const fixture = 'gemini/pydantic-streaming-tool-call-thought-signature.cassette.json';
  const model = 'gemini-3-pro-preview';
  const decoder = new GeminiDecoder({
    origin: { api: 'gemini', provider: 'gemini', host: 'generativelanguage.googleapis.com', model },
    issuer: 'ai-studio',
  });
  const body = String(readCassette(fixture)[0]?.response.body);
  const events: StreamEvent[] = [];
  for (const frame of body.split(/\r?\n\r?\n/)) {
    if (frame.startsWith('data: ')) events.push(...decoder.push(JSON.parse(frame.slice(6)) as GeminiResponse));
  }
  events.push(...decoder.end());
  const assistant = finished(events);
  const call = assistant.role === 'assistant' ? assistant.tool_calls?.[0] : undefined;
  // The recording holds the signature twice (the streamed part, then the cassette's replay of it).
  const [signature] = recordedBytes(fixture, 'thoughtSignature');
  return {
    name: 'Gemini',
    fixture,
    route: { api: 'gemini', provider: 'gemini', model },
    history: [
      { role: 'user', content: 'What is the capital of the user country? Call the tool' },
      assistant,
      { role: 'tool', tool_call_id: call?.id ?? '', tool_name: call?.function.name ?? '', content: 'Mexico' },
    ],
    explained: /kept thought_signature \(same issuer and model family, (\d+) B\)/,
    bytes: signature ?? 0,
  };
}

async function storeSession(sandbox: Sandbox, recorded: Recorded): Promise<string> {
  const store = openSqliteSessionStore(stateDbPath(sandbox.home));
  try {
    const session = await store.createSession({
      provider: recorded.route.provider,
      model: recorded.route.model,
      baseUrl: recorded.route.baseUrl ?? null,
      api: recorded.route.api,
    });
    await store.appendMessages(session.id, recorded.history);
    return session.id;
  } finally {
    await store.close();
  }
}

describe('SPEC §25.5: opaque bytes are counted once, as they travel, from recorded traffic', () => {
  const recordings = [anthropicRecording(), bedrockRecording(), geminiRecording()];

  it('the recordings carry one signature each: Anthropic 504 B, Bedrock 496 B, Gemini 1408 B', () => {
    expect(recordings.map((recorded) => [recorded.name, recorded.bytes])).toEqual([
      ['Anthropic', 504],
      ['Bedrock Converse', 496],
      ['Gemini', 1408],
    ]);
  });

  it.each(recordings.map((recorded) => [recorded.name, recorded] as const))(
    '%s: sessions show, --explain and the request log report the same single count',
    async (_name, recorded) => {
      const sandbox = e2e.sandbox();
      const sessionId = await storeSession(sandbox, recorded);

      const shown = await runHermes(['sessions', 'show', sessionId], sandbox);
      expect(shown.code, shown.stderr).toBe(0);
      const kept = [...shown.stdout.matchAll(/opaque bytes kept: (\d+)/g)].map((match) => Number(match[1]));
      expect(kept).toEqual([recorded.bytes]);

      const explained = await runHermes(['replay', 'preview', '--session', sessionId, '--explain'], sandbox);
      expect(explained.code, explained.stderr).toBe(0);
      const lines = [...explained.stdout.matchAll(new RegExp(recorded.explained, 'g'))];
      expect(lines.map((match) => Number(match[1]))).toEqual([recorded.bytes]);

      // The agent.log request line and the gateway inspector print these same decisions.
      const prepared = prepareRequest(
        { route: recorded.route, history: recorded.history, tools: [], reasoning: { enabled: true } },
        {},
      );
      const logged = summariseDecisions(prepared.decisions).filter((line) => line.includes(' kept ('));
      expect(logged.filter((line) => line.endsWith(`, ${recorded.bytes} B)`))).toHaveLength(1);
    },
  );

  it('on a foreign route the same carrier is dropped once, with the same count', async () => {
    const [anthropic, bedrock] = recordings;
    for (const recorded of [anthropic!, bedrock!]) {
      const prepared = prepareRequest(
        {
          route: { api: 'gemini', provider: 'gemini', model: 'gemini-3-pro-preview' },
          history: recorded.history,
          tools: [],
          reasoning: { enabled: true },
        },
        {},
      );
      const opaqueDrops = prepared.decisions.filter(
        (decision) =>
          decision.action === 'dropped' && decision.field !== 'reasoning_content' && decision.field !== 'reasoning',
      );
      expect(opaqueDrops.map((decision) => decision.bytes)).toEqual([recorded.bytes]);
    }
  });
});
