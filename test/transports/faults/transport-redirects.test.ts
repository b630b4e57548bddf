import { afterEach, describe, expect, it } from 'vitest';
import { RedirectRefusedError } from '../../../src/transports/shared/transport-redirect.js';
import { startRecordingServer, type RecordingServer } from '../../support/recording-server.js';
import { collectEvents } from '../transport-test-helpers.js';
import { ECHOED_KEY, everythingSaid, FAULT_TARGET_APIS, TRANSPORT_ROUTES, transportRequest } from './fault-targets.js';

/**
 * No transport follows a redirect (transport-redirect.ts): a provider answering 3xx — to another
 * origin or within its own — gets one request, the target of the redirect gets nothing (no key in
 * any header, no body), and the turn ends with one line naming the status and the target origin.
 * A base URL's query stays after the endpoint path (transport-url.ts). Both against loopback
 * servers that record what they receive.
 */

const servers: RecordingServer[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
});

/** Where each wire API's base URL points on a server (the transports add their endpoint path). */
const BASE_PATHS: Record<(typeof FAULT_TARGET_APIS)[number], string> = {
  chat_completions: '/v1',
  anthropic_messages: '',
  gemini: '/v1beta',
  codex_responses: '/v1',
  bedrock_converse: '',
};

/** The endpoint path each wire API's streaming request goes to, after the base path. */
const ENDPOINTS: Record<(typeof FAULT_TARGET_APIS)[number], string> = {
  chat_completions: '/chat/completions',
  anthropic_messages: '/v1/messages',
  gemini: '/models/gemini-3-pro-preview:streamGenerateContent',
  codex_responses: '/responses',
  bedrock_converse: `/model/${encodeURIComponent('us.anthropic.claude-sonnet-4-5-v1:0')}/converse-stream`,
};

async function recording(answer: Parameters<typeof startRecordingServer>[0]): Promise<RecordingServer> {
  const server = await startRecordingServer(answer);
  servers.push(server);
  return server;
}

describe.each(FAULT_TARGET_APIS)('%s: redirects and base URL queries', (api) => {
  it('a 307 to another origin is refused: the other origin receives nothing, the key is not in the error', async () => {
    const elsewhere = await recording((_request, response) => response.writeHead(200).end('{}'));
    const provider = await recording((_request, response) =>
      response.writeHead(307, { location: `${elsewhere.origin}/v1/steal?from=redirect` }).end(),
    );
    const transport = TRANSPORT_ROUTES[api].transport();
    const events = await collectEvents(transport.send(transportRequest(api, `${provider.origin}${BASE_PATHS[api]}`)));
    const last = events.at(-1) as { type: string; error?: Error };
    expect(last.type).toBe('error');
    expect(last.error).toBeInstanceOf(RedirectRefusedError);
    expect(last.error?.message).toContain('HTTP 307');
    expect(last.error?.message).toContain(`another origin, ${elsewhere.origin}`);
    expect(last.error?.message).not.toContain('/v1/steal');
    expect(last.error?.message.split('\n')).toHaveLength(1);
    expect(everythingSaid(events)).not.toContain(ECHOED_KEY);
    expect(events.some((event) => event.type === 'retry')).toBe(false);
    expect(provider.requests).toHaveLength(1);
    expect(elsewhere.requests).toEqual([]);
  });

  it('a 308 within the same origin is refused too, and not sent again', async () => {
    const provider = await recording((_request, response) =>
      response.writeHead(308, { location: '/moved/here' }).end(),
    );
    const transport = TRANSPORT_ROUTES[api].transport();
    const events = await collectEvents(transport.send(transportRequest(api, `${provider.origin}${BASE_PATHS[api]}`)));
    const last = events.at(-1) as { type: string; error?: Error };
    expect(last.error).toBeInstanceOf(RedirectRefusedError);
    expect(last.error?.message).toContain(`HTTP 308, a redirect to another address on ${provider.origin}`);
    expect(provider.requests).toHaveLength(1);
  });

  it("keeps a base URL's query after the endpoint path", async () => {
    const provider = await recording((_request, response) => response.writeHead(400).end('{"error":"stop here"}'));
    const transport = TRANSPORT_ROUTES[api].transport();
    await collectEvents(
      transport.send(transportRequest(api, `${provider.origin}${BASE_PATHS[api]}?key=K1&tenant=t%202`)),
    );
    expect(provider.requests.length).toBeGreaterThan(0);
    const url = new URL(provider.requests[0]?.url ?? '', provider.origin);
    expect(url.pathname).toBe(`${BASE_PATHS[api]}${ENDPOINTS[api]}`);
    expect(url.searchParams.get('key')).toBe('K1');
    expect(url.searchParams.get('tenant')).toBe('t 2');
    if (api === 'gemini') expect(url.searchParams.get('alt')).toBe('sse');
  });
});
