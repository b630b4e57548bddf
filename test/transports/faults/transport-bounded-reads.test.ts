import { afterEach, describe, expect, it } from 'vitest';
import { StreamError } from '../../../src/core/errors.js';
import { ServerSentEventFramer } from '../../../src/transports/shared/transport-sse-reader.js';
import { FAULT_TARGET_APIS, startFaultTarget, type FaultTarget } from './fault-targets.js';
import { collectEvents } from '../transport-test-helpers.js';

/**
 * Reads from a provider are bounded: an error body is read up to a cap and the rest left unread
 * (a 256 MiB body does not become a 256 MiB string), and one stream event past its cap ends the
 * stream with a clear error instead of filling memory.
 */

let target: FaultTarget | undefined;
afterEach(async () => {
  await target?.close();
  target = undefined;
});

const MiB = 1024 * 1024;

describe.each(FAULT_TARGET_APIS)('%s: bounded reads', (api) => {
  it('a 256 MiB error body: the error keeps the start of the text, memory stays flat', async () => {
    target = await startFaultTarget(api);
    target.addFault({ kind: 'huge-error-body', status: 400, bytes: 256 * MiB });
    const before = process.memoryUsage().rss;
    const events = await collectEvents(target.transport.send({ ...target.request(), maxAttempts: 1 }));
    const grown = process.memoryUsage().rss - before;
    const last = events.at(-1) as { type: string; error?: Error };
    expect(last.type).toBe('error');
    expect(last.error?.message.length).toBeLessThan(10_000);
    expect(grown).toBeLessThan(96 * MiB);
  });

  it.skipIf(api === 'bedrock_converse')('one 40 MiB stream event ends the stream with a clear error', async () => {
    target = await startFaultTarget(api);
    target.addFault({ kind: 'huge-event', bytes: 40 * MiB });
    const events = await collectEvents(target.transport.send({ ...target.request(), maxAttempts: 1 }));
    const last = events.at(-1) as { type: string; error?: Error };
    expect(last.type).toBe('error');
    expect(last.error?.message).toContain('one stream event larger than 32 MiB');
  });
});

describe('ServerSentEventFramer event cap', () => {
  it('comments and complete events reset the count; one unfinished event past the cap throws', () => {
    const data: string[] = [];
    const framer = new ServerSentEventFramer((text) => data.push(text), 100);
    for (let i = 0; i < 20; i++) framer.push(': keep-alive\n\n');
    expect(data).toEqual([]);
    for (let i = 0; i < 20; i++) framer.push(`data: {"i":${i}}\n\n`);
    expect(data).toHaveLength(20);
    framer.push(`data: ${'x'.repeat(60)}`);
    expect(() => framer.push('x'.repeat(60))).toThrow(StreamError);
  });
});
