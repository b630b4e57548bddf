import { describe, expect, it } from 'vitest';
import { useE2e } from '../support/e2e.js';
import { ask, startStallableGateway, until } from './gateway-stalled-turns.js';

/**
 * A client that disconnects while its turn waits on a stalled provider aborts that turn, streaming
 * or not: the session is released at once, so the next turn on it is served instead of queueing
 * behind a provider that may not answer for minutes (reliability: nothing hangs).
 */

const e2e = useE2e();

describe('gateway: a client that leaves aborts its turn', () => {
  it.each([false, true])(
    'stream=%s: the stalled turn is aborted and the session serves the next turn',
    async (stream) => {
      const { emulator, gateway, post } = await startStallableGateway(e2e);

      const first = await post(ask('hello', false));
      expect(first.status).toBe(200);
      const sessionId = first.headers.get('x-hermes-session-id') ?? '';
      await first.text();

      emulator.addFault({ kind: 'stall-before-headers' });
      const leaving = new AbortController();
      const before = emulator.requests.length;
      const stalled = post(ask('this one stalls', stream), { 'x-hermes-session-id': sessionId }, leaving.signal);
      // Wait until the provider holds the stalled request, then leave.
      await until(() => emulator.requests.length > before);
      if (stream) expect((await stalled).status).toBe(200); // a streaming turn answers headers at once
      leaving.abort();
      await stalled.then((response) => response.text()).catch(() => undefined);

      const next = await post(
        ask('and now?', false),
        { 'x-hermes-session-id': sessionId },
        AbortSignal.timeout(15_000),
      );
      expect(next.status).toBe(200);
      const body = (await next.json()) as { choices: { message: { content: string } }[] };
      expect(body.choices[0]?.message.content).toBeTruthy();
      const roles = (await gateway.store.listMessages(sessionId)).map((message) => message.role);
      // Nothing of the aborted turn's answer was stored; the history stays a valid conversation.
      expect(roles.filter((role) => role === 'assistant')).toHaveLength(2);
      expect(roles.at(-1)).toBe('assistant');
    },
  );
});
