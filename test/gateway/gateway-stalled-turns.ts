import { expect } from 'vitest';
import type { E2e } from '../support/e2e.js';
import { makeGatewaySandbox, startPersona, startTestGateway } from './gateway-test-helpers.js';

/** Helpers of the tests where a client leaves while the provider holds its request. */

/** A chat-completions body asking `text`. */
export const ask = (text: string, stream: boolean) =>
  JSON.stringify({ model: 'hermes', stream, messages: [{ role: 'user', content: text }] });

/** Waits (bounded: 10 s) until `done()`. */
export async function until(done: () => boolean): Promise<void> {
  for (let i = 0; i < 1000 && !done(); i++) await new Promise((resolve) => setTimeout(resolve, 10));
  expect(done()).toBe(true);
}

/** A gateway on a DeepSeek emulator (a fault can stall it), and a `POST /v1/chat/completions`. */
export async function startStallableGateway(e2e: Pick<E2e, 'defer'>) {
  const sandbox = makeGatewaySandbox();
  const { emulator, route } = await startPersona('deepseek');
  e2e.defer(() => emulator.close());
  const gateway = await startTestGateway(sandbox.dbPath, route, sandbox.workspace);
  e2e.defer(() => gateway.close());
  const post = (body: string, headers: Record<string, string> = {}, signal?: AbortSignal) =>
    fetch(`${gateway.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body,
      ...(signal ? { signal } : {}),
    });
  return { emulator, gateway, post };
}
