import { afterEach, describe, expect, it } from 'vitest';
import { collectEvents } from '../transport-test-helpers.js';
import {
  ECHOED_KEY,
  everythingSaid,
  FAULT_TARGET_APIS,
  SHAPELESS_KEY,
  startFaultTarget,
  type FaultTarget,
} from './fault-targets.js';

/**
 * A provider that echoes the request's credentials inside an in-band error chunk, a malformed
 * chunk or a 200 JSON error body: the transport still ends in one typed error, and the key is
 * nowhere in what leaves it (message, body, cause, stack, retry reasons). SPEC §23.3 and STYLE rule 5
 * (docs/architecture.md): API keys never reach output.
 */

let target: FaultTarget | undefined;
afterEach(async () => {
  await target?.close();
  target = undefined;
});

const PLACES = ['error-chunk', 'malformed-chunk', 'error-body'] as const;
/** AWS never answers an error with 200, so Bedrock has no 200 error body. */
const placesOf = (api: string) =>
  api === 'bedrock_converse' ? PLACES.filter((where) => where !== 'error-body') : PLACES;

describe.each(FAULT_TARGET_APIS)('%s: a key echoed by the provider is redacted at the exit', (api) => {
  it.each(placesOf(api))('echo in %s', async (where) => {
    target = await startFaultTarget(api);
    target.addFault({ kind: 'key-echo', where });
    const events = await collectEvents(target.transport.send(target.request({ stream: where !== 'error-body' })));
    const last = events.at(-1);
    expect(last?.type).toBe('error');
    const said = everythingSaid(events);
    expect(said).not.toContain(ECHOED_KEY);
    expect(said).not.toContain(ECHOED_KEY.slice(3, 20));
  });
});

/**
 * A key with no known shape, echoed bare: as the request id of a 401, or cut in half across two
 * malformed chunks (the decoder stops at the first, so only the first half is ever seen). Only
 * the literal redaction of the request's key, and of its pieces, can remove it.
 */
const BARE_PLACES = ['request-id-header', 'split-malformed-chunks'] as const;
const KEYED_APIS = FAULT_TARGET_APIS.filter((api) => api !== 'bedrock_converse');

describe.each(KEYED_APIS)('%s: a bare key echoed by the provider is redacted at the exit', (api) => {
  it.each(BARE_PLACES)('echo in %s', async (where) => {
    target = await startFaultTarget(api);
    target.addFault({ kind: 'key-echo', where });
    const request = target.request({ stream: true, apiKey: SHAPELESS_KEY });
    const events = await collectEvents(target.transport.send({ ...request, maxAttempts: 1 }));
    expect(events.at(-1)?.type).toBe('error');
    const said = everythingSaid(events);
    expect(said).toContain('[redacted]');
    for (let start = 0; start + 8 <= SHAPELESS_KEY.length; start += 1) {
      expect(said).not.toContain(SHAPELESS_KEY.slice(start, start + 8));
    }
  });
});
