import { afterEach, describe, expect, it } from 'vitest';
import { collectEvents } from '../transport-test-helpers.js';
import { ECHOED_KEY, everythingSaid, FAULT_TARGET_APIS, startFaultTarget, type FaultTarget } from './fault-targets.js';

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
