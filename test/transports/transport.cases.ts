import { expect } from 'vitest';
import { ApiError, AbortError, HermesError } from '../../src/core/errors.js';
import type { AssistantMessage, Message } from '../../src/core/message.js';
import type { StreamEvent } from '../../src/core/stream-event.js';
import { toolDefinitions } from '../../src/tools/tool-registry.js';
import type { TransportRequest } from '../../src/transports/shared/transport.js';
import type { FaultTarget } from './faults/fault-targets.js';
import { collectEvents } from './transport-test-helpers.js';

/**
 * The transport conformance cases: what every wire API's transport promises its caller
 * (src/transports/shared/transport.ts), run for all five against their loopback emulators by
 * transport-conformance.test.ts. One terminal event per stream; text, reasoning and tool calls
 * streamed and assembled; a tool result round trip accepted by the provider; HTTP errors typed
 * with status and provider text; retries announced; an abort ends as an AbortError; `send` never
 * throws, not even when `prepare` does.
 */

export interface ConformanceCase {
  name: string;
  run(target: FaultTarget): Promise<void>;
}

const TOOLS = toolDefinitions();

function withHistory(target: FaultTarget, history: Message[], extra: Partial<TransportRequest> = {}): TransportRequest {
  return { ...target.request(), history, tools: TOOLS, ...extra };
}

function terminal(events: readonly StreamEvent[]): StreamEvent {
  const ends = events.filter((event) => event.type === 'finish' || event.type === 'error');
  expect(ends).toHaveLength(1);
  expect(events.at(-1)).toBe(ends[0]);
  return ends[0] as StreamEvent;
}

function finished(events: readonly StreamEvent[]): AssistantMessage {
  const end = terminal(events);
  if (end.type === 'error') throw end.error;
  expect(end.type).toBe('finish');
  return (end as Extract<StreamEvent, { type: 'finish' }>).message;
}

function joined(events: readonly StreamEvent[], type: 'text-delta' | 'reasoning-delta'): string {
  return events.map((event) => (event.type === type ? event.text : '')).join('');
}

const ASK_TOOL = 'read the file notes.txt';

export const CONFORMANCE_CASES: readonly ConformanceCase[] = [
  {
    name: 'text streams as deltas and the finish message holds the same text',
    async run(target) {
      const events = await collectEvents(
        target.transport.send(withHistory(target, [{ role: 'user', content: 'say hello' }])),
      );
      expect(events[0]?.type).toBe('start');
      const message = finished(events);
      expect(message.role).toBe('assistant');
      expect(joined(events, 'text-delta').length).toBeGreaterThan(0);
      expect(message.content).toBe(joined(events, 'text-delta'));
    },
  },
  {
    name: 'reasoning streams as reasoning deltas before the answer text',
    async run(target) {
      const events = await collectEvents(
        target.transport.send(withHistory(target, [{ role: 'user', content: 'say hello' }])),
      );
      finished(events);
      const firstReasoning = events.findIndex((event) => event.type === 'reasoning-delta');
      const firstText = events.findIndex((event) => event.type === 'text-delta');
      expect(firstReasoning).toBeGreaterThan(-1);
      expect(firstReasoning).toBeLessThan(firstText);
    },
  },
  {
    name: 'a tool call streams start and argument deltas; the finish message holds it with its id',
    async run(target) {
      const events = await collectEvents(
        target.transport.send(withHistory(target, [{ role: 'user', content: ASK_TOOL }])),
      );
      const message = finished(events);
      const call = message.tool_calls?.[0];
      expect(call?.function.name).toBe('read_file');
      expect(JSON.parse(call?.function.arguments ?? '{}')).toMatchObject({ path: 'notes.txt' });
      const start = events.find((event) => event.type === 'tool-call-start');
      expect(start).toMatchObject({ type: 'tool-call-start', name: 'read_file', id: call?.id });
    },
  },
  {
    name: 'round trip: the tool call and its result go back, the provider accepts them and answers',
    async run(target) {
      const ask: Message = { role: 'user', content: ASK_TOOL };
      const first = finished(await collectEvents(target.transport.send(withHistory(target, [ask]))));
      const call = first.tool_calls?.[0];
      expect(call).toBeDefined();
      const history: Message[] = [ask, first, { role: 'tool', tool_call_id: call?.id ?? '', content: 'alpha beta\n' }];
      const second = finished(await collectEvents(target.transport.send(withHistory(target, history))));
      expect(second.content?.length ?? 0).toBeGreaterThan(0);
    },
  },
  {
    name: 'an HTTP 400 ends in one typed ApiError with its status and the provider text, not retried',
    async run(target) {
      target.addFault({ kind: 'status', status: 400 });
      const events = await collectEvents(target.transport.send(withHistory(target, [{ role: 'user', content: 'hi' }])));
      const end = terminal(events);
      expect(end.type).toBe('error');
      const error = (end as Extract<StreamEvent, { type: 'error' }>).error;
      expect(error).toBeInstanceOf(ApiError);
      expect((error as ApiError).status).toBe(400);
      expect(error.message.length).toBeGreaterThan(10);
      expect(events.some((event) => event.type === 'retry')).toBe(false);
    },
  },
  {
    name: 'an HTTP 500 is retried (announced with a retry event) and the next attempt answers',
    async run(target) {
      target.addFault({ kind: 'status', status: 500 });
      const events = await collectEvents(
        target.transport.send(withHistory(target, [{ role: 'user', content: 'say hello' }], { maxAttempts: 3 })),
      );
      finished(events);
      expect(events.filter((event) => event.type === 'retry')).toHaveLength(1);
    },
  },
  {
    name: 'an abort mid-stream ends in one AbortError and nothing after it',
    async run(target) {
      target.addFault({ kind: 'endless-deltas', intervalMs: 5 });
      const controller = new AbortController();
      const stream = target.transport.send(
        withHistory(target, [{ role: 'user', content: 'say hello' }], { signal: controller.signal }),
      );
      const events: StreamEvent[] = [];
      for await (const event of stream) {
        events.push(event);
        if (event.type === 'text-delta' && !controller.signal.aborted) controller.abort();
      }
      const end = terminal(events);
      expect(end.type).toBe('error');
      const error = (end as Extract<StreamEvent, { type: 'error' }>).error;
      expect(error).toBeInstanceOf(HermesError);
      expect(error).toBeInstanceOf(AbortError);
    },
  },
  {
    name: 'send never throws: an error thrown while preparing the request ends the stream with one error',
    async run(target) {
      const request = withHistory(target, []);
      Object.defineProperty(request, 'history', {
        get() {
          throw new Error('history unavailable');
        },
      });
      const events = await collectEvents(target.transport.send(request));
      expect(events).toHaveLength(1);
      const end = terminal(events);
      expect(end.type).toBe('error');
      const error = (end as Extract<StreamEvent, { type: 'error' }>).error;
      expect(error).toBeInstanceOf(HermesError);
      expect(error.message).toContain('history unavailable');
    },
  },
];
