import { describe, expect, it } from 'vitest';
import { EventStream } from '../../src/core/event-stream.js';
import { StreamError } from '../../src/core/errors.js';
import type { StreamEvent } from '../../src/core/stream-event.js';

describe('EventStream (STYLE rule 4 (docs/architecture.md))', () => {
  it('delivers events in order and resolves result() with the finished message', async () => {
    const stream = new EventStream();
    stream.push({ type: 'start' });
    stream.push({ type: 'text-delta', text: 'hi' });
    stream.end({
      type: 'finish',
      message: { role: 'assistant', content: 'hi' },
      finishReason: { unified: 'stop', raw: 'stop' },
      usage: null,
    });
    stream.push({ type: 'text-delta', text: 'ignored after the terminal event' });
    const seen: StreamEvent['type'][] = [];
    for await (const event of stream) seen.push(event.type);
    expect(seen).toEqual(['start', 'text-delta', 'finish']);
    await expect(stream.result()).resolves.toEqual({ role: 'assistant', content: 'hi' });
  });

  it('take() hands queued events over at once, waits for the next one, and gives undefined after the end', async () => {
    const stream = new EventStream();
    stream.push({ type: 'start' });
    stream.push({ type: 'text-delta', text: 'a' });
    expect(stream.take()).toEqual({ type: 'start' });
    expect(stream.take()).toEqual({ type: 'text-delta', text: 'a' });
    const pending = stream.take();
    expect(pending).toBeInstanceOf(Promise);
    stream.push({ type: 'text-delta', text: 'b' });
    await expect(pending).resolves.toEqual({ type: 'text-delta', text: 'b' });
    const waiting = stream.take();
    stream.end({
      type: 'finish',
      message: { role: 'assistant', content: 'ab' },
      finishReason: { unified: 'stop', raw: 'stop' },
      usage: null,
    });
    await expect(waiting).resolves.toMatchObject({ type: 'finish' });
    expect(stream.take()).toBeUndefined();
  });

  it('ends with exactly one error event and rejects result()', async () => {
    const stream = new EventStream();
    const consumed = (async () => {
      const types: string[] = [];
      for await (const event of stream) types.push(event.type);
      return types;
    })();
    stream.push({ type: 'text-delta', text: 'half' });
    stream.fail(new StreamError('connection dropped mid-stream'));
    stream.fail(new StreamError('second failure is ignored'));
    expect(await consumed).toEqual(['text-delta', 'error']);
    await expect(stream.result()).rejects.toThrow('connection dropped mid-stream');
  });
});
