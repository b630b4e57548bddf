import { execFileSync } from 'node:child_process';
import { renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { stateDbPath } from '../../src/storage/store-paths.js';
import { skipWithoutPostgres } from '../storage/postgres-test-database.js';
import { startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from '../support/otlp-receiver.js';
import { routeArgs, runHermes, useE2e, type GatewayProcess } from '../support/e2e.js';

/**
 * `hermes gateway` operated as a service (SPEC §26.10), through the real CLI: the probes on
 * SQLite and on a PostgreSQL server stopped mid-test, the Prometheus counters after a known
 * sequence of requests, and OpenTelemetry spans received by a local OTLP/HTTP receiver (GenAI
 * attributes, no key, no content unless capture is on), for the gateway and `hermes chat`.
 */

const e2e = useE2e();
const TOKEN = 'operator-token-e2e-0001';
const CANARY_KEY = 'sk-canary-7b1e9d40c2f35a68e4d1';
const CANARY_TEXT = 'purple-elephant-canary-4411';
const MODEL = 'z-ai/glm-5';
const AUTH = { authorization: `Bearer ${TOKEN}` };

async function get(url: string, headers: Record<string, string> = {}) {
  const response = await fetch(url, { headers });
  return { status: response.status, text: await response.text() };
}

/** The sample values of a Prometheus exposition, by `name{labels}`. */
async function scrape(gateway: GatewayProcess): Promise<Map<string, number>> {
  const { status, text } = await get(`${gateway.url}/metrics`, AUTH);
  expect(status).toBe(200);
  const samples = new Map<string, number>();
  for (const line of text.split('\n')) {
    const match = /^(hermes_[a-z_]+(?:\{[^}]*\})?) (\S+)$/.exec(line);
    if (match?.[1] && match[2]) samples.set(match[1], Number(match[2]));
  }
  return samples;
}

function delta(before: Map<string, number>, after: Map<string, number>, sample: string): number {
  return (after.get(sample) ?? 0) - (before.get(sample) ?? 0);
}

/** The fields of the answers these tests read. */
interface AnswerBody {
  session_id?: string;
  usage: { prompt_tokens?: number; input_tokens?: number };
  content?: unknown;
}

async function postJson(url: string, body: unknown, headers: Record<string, string> = {}) {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...AUTH, ...headers },
    body: JSON.stringify(body),
  });
  return { status: response.status, headers: response.headers, body: (await response.json()) as AnswerBody };
}

/** A gateway on the openrouter persona that refuses `reasoning_details` once (the recovered 400), with a token. */
async function startRejectingGateway(env: Record<string, string> = {}) {
  const emulator = await e2e.chat({ persona: 'openrouter', rejectKeys: ['reasoning_details'] });
  const sandbox = e2e.sandbox();
  const gateway = await e2e.gateway(
    [...routeArgs('openrouter', MODEL, emulator.baseUrl, CANARY_KEY), '--token', TOKEN],
    sandbox,
    env,
  );
  return { emulator, sandbox, gateway };
}

describe('probes', () => {
  it('SQLite: healthz and readyz answer without the token; a replaced state.db makes readyz 503 in one line', async () => {
    const { sandbox, gateway } = await startRejectingGateway();
    expect(await get(`${gateway.url}/healthz`)).toEqual({ status: 200, text: 'ok\n' });
    expect(await get(`${gateway.url}/readyz`)).toEqual({ status: 200, text: 'ready\n' });
    // Other routes still need the token.
    expect((await get(`${gateway.url}/v1/sessions`)).status).toBe(401);
    const path = stateDbPath(sandbox.home);
    writeFileSync(join(sandbox.home, 'other.db'), 'not a database');
    renameSync(join(sandbox.home, 'other.db'), path);
    const refused = await get(`${gateway.url}/readyz`);
    expect(refused.status).toBe(503);
    expect(refused.text).toMatch(
      /^not ready: the session store does not answer: .*state\.db.*another file replaced it[^\n]*\n$/,
    );
    expect(await get(`${gateway.url}/healthz`)).toEqual({ status: 200, text: 'ok\n' });
  });

  it.skipIf(skipWithoutPostgres())(
    'PostgreSQL: readyz turns 503 when the server stops and 200 when it is back; healthz stays 200',
    async () => {
      // A server of this test's own, so stopping it disturbs no other test.
      const started = execFileSync('scripts/ci-postgres.sh', ['start'], { encoding: 'utf8' });
      const url = /HERMES_TEST_DATABASE_URL=(\S+)/.exec(started)?.[1] as string;
      const dir = /HERMES_TEST_POSTGRES_DIR=(\S+)/.exec(started)?.[1] as string;
      e2e.defer(() => execFileSync('scripts/ci-postgres.sh', ['stop', dir]));
      const emulator = await e2e.chat({ persona: 'openrouter' });
      const gateway = await e2e.gateway(
        [...routeArgs('openrouter', MODEL, emulator.baseUrl), '--token', TOKEN],
        e2e.sandbox(),
        { HERMES_DATABASE_URL: url },
      );
      expect(await get(`${gateway.url}/readyz`)).toEqual({ status: 200, text: 'ready\n' });
      const pgCtl = (action: string) =>
        execFileSync(
          'bash',
          [
            '-c',
            `bin=$(ls -d /usr/lib/postgresql/*/bin | head -1); ${asOwner()} "$bin/pg_ctl" -D "${dir}/data" -w ${action}`,
          ],
          { encoding: 'utf8', stdio: 'pipe' },
        );
      pgCtl('stop -m fast');
      const refused = await get(`${gateway.url}/readyz`);
      expect(refused.status).toBe(503);
      expect(refused.text).toMatch(/^not ready: the session store does not answer: [^\n]*\n$/);
      expect(refused.text).not.toMatch(/password/i);
      expect(await get(`${gateway.url}/healthz`)).toEqual({ status: 200, text: 'ok\n' });
      // restart reuses the options the server last ran with (its port, its socket directory).
      pgCtl(`-l "${dir}/server.log" restart`);
      expect(await get(`${gateway.url}/readyz`)).toEqual({ status: 200, text: 'ready\n' });
    },
    120_000,
  );
});

/** `runuser -u postgres --` when root (PostgreSQL refuses to run as root; scripts/ci-postgres.sh does the same). */
function asOwner(): string {
  return process.getuid?.() === 0 ? 'runuser -u postgres --' : '';
}

describe('metrics', () => {
  it('move by exactly the requests sent: chat turns, Messages turns, a recovered upstream 400, a tampered handle', async () => {
    const { emulator, gateway } = await startRejectingGateway();
    const before = await scrape(gateway);

    // Two chat turns on one session: the second replays reasoning_details, which the route
    // refuses once (400), learns, and retries (200).
    const first = await postJson(`${gateway.url}/v1/chat/completions`, {
      model: MODEL,
      messages: [{ role: 'user', content: 'hello' }],
    });
    expect(first.status).toBe(200);
    const session = first.body.session_id as string;
    const second = await postJson(
      `${gateway.url}/v1/chat/completions`,
      { model: MODEL, messages: [{ role: 'user', content: 'hello again' }] },
      { 'x-hermes-session-id': session },
    );
    expect(second.status).toBe(200);
    expect(emulator.requests.map((request) => request.status)).toEqual([200, 400, 200]);

    // Three Messages turns: the last echoes a tampered handle.
    const messages: { role: string; content: unknown }[] = [{ role: 'user', content: 'hi there' }];
    let tokens = Number(first.body.usage.prompt_tokens) + Number(second.body.usage.prompt_tokens);
    for (let turn = 0; turn < 3; turn += 1) {
      if (turn === 2) {
        const thinking = (messages[1]?.content as { type: string; signature: string }[])[0] as { signature: string };
        const flipped = thinking.signature[40] === 'x' ? 'y' : 'x';
        thinking.signature = `${thinking.signature.slice(0, 40)}${flipped}${thinking.signature.slice(41)}`;
      }
      const answer = await postJson(`${gateway.url}/v1/messages`, { model: MODEL, max_tokens: 1000, messages });
      expect(answer.status).toBe(200);
      tokens += Number(answer.body.usage.input_tokens);
      messages.push({ role: 'assistant', content: answer.body.content }, { role: 'user', content: `more ${turn}` });
    }

    const after = await scrape(gateway);
    const moved = (sample: string) => delta(before, after, sample);
    expect(moved('hermes_gateway_requests_total{door="/v1/chat/completions",method="POST",status="200"}')).toBe(2);
    expect(moved('hermes_gateway_requests_total{door="/v1/messages",method="POST",status="200"}')).toBe(3);
    expect(moved(`hermes_upstream_requests_total{provider="openrouter",model="${MODEL}",status="200"}`)).toBe(5);
    expect(moved(`hermes_upstream_requests_total{provider="openrouter",model="${MODEL}",status="400"}`)).toBe(1);
    expect(moved(`hermes_upstream_recoveries_total{provider="openrouter",row="field-verdict"}`)).toBe(1);
    expect(moved(`hermes_verdicts_learned_total{provider="openrouter",kind="verdict"}`)).toBe(1);
    expect(moved('hermes_gateway_handles_dropped_total{reason="tampered"}')).toBe(1);
    expect(moved(`hermes_upstream_tokens_total{provider="openrouter",model="${MODEL}",type="input"}`)).toBe(tokens);
    expect(moved(`hermes_upstream_request_duration_seconds_count{provider="openrouter",model="${MODEL}"}`)).toBe(6);
    expect(moved('hermes_replay_decisions_total{action="dropped"}')).toBeGreaterThanOrEqual(1);
    // Live sessions: the chat session (Messages turns without a session header are stateless).
    expect(after.get('hermes_gateway_live_sessions')).toBe(1);
    // No label carries a session id or the key.
    const text = (await get(`${gateway.url}/metrics`, AUTH)).text;
    expect(text).not.toContain(session);
    expect(text).not.toContain(CANARY_KEY);
  });
});

/** The spans of one trace, by name. */
function named(spans: ReceivedSpan[], name: string): ReceivedSpan[] {
  return spans.filter((span) => span.name === name);
}

async function tracedGateway(receiver: OtlpReceiver, extra: Record<string, string> = {}) {
  return startRejectingGateway({
    OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint,
    OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/json',
    OTEL_BSP_SCHEDULE_DELAY: '100',
    OTEL_RESOURCE_ATTRIBUTES: 'deployment.environment=test',
    ...extra,
  });
}

describe('traces', () => {
  it('a gateway request is a SERVER span over an agent turn, its provider requests and tool calls, with GenAI attributes and no key or content', async () => {
    const receiver = await startOtlpReceiver();
    e2e.defer(() => receiver.close());
    const { gateway } = await tracedGateway(receiver);
    expect(gateway.stderr).toContain(', tracing)');
    const first = await postJson(`${gateway.url}/v1/chat/completions`, {
      model: MODEL,
      messages: [{ role: 'user', content: `read the file notes.txt ${CANARY_TEXT}` }],
    });
    expect(first.status).toBe(200);
    const session = first.body.session_id as string;
    await postJson(
      `${gateway.url}/v1/chat/completions`,
      { model: MODEL, messages: [{ role: 'user', content: `and again ${CANARY_TEXT}` }] },
      { 'x-hermes-session-id': session },
    );
    // A streamed answer: its span lasts until the stream ends, so it sums the provider request too.
    const streamed = await fetch(`${gateway.url}/v1/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...AUTH },
      body: JSON.stringify({
        model: MODEL,
        max_tokens: 1000,
        stream: true,
        messages: [{ role: 'user', content: `hi ${CANARY_TEXT}` }],
      }),
    });
    expect(streamed.status).toBe(200);
    expect(await streamed.text()).toContain('event: message_stop');
    const spans = await receiver.waitFor((found) => named(found, 'POST /v1/messages').length === 1);

    const servers = named(spans, 'POST /v1/chat/completions');
    expect(servers).toHaveLength(2);
    const [server] = servers as [ReceivedSpan];
    expect(server.kind).toBe(2);
    expect(server.resource).toMatchObject({ 'service.name': 'hermes-gateway', 'deployment.environment': 'test' });
    expect(server.attributes).toMatchObject({
      'http.request.method': 'POST',
      'http.route': '/v1/chat/completions',
      'http.response.status_code': 200,
      'gen_ai.operation.name': 'chat',
      'gen_ai.provider.name': 'openrouter',
      'gen_ai.request.model': MODEL,
      'gen_ai.response.model': MODEL,
      'gen_ai.conversation.id': session,
    });
    expect(server.attributes['gen_ai.usage.input_tokens']).toBeGreaterThan(0);
    const turn = named(spans, 'invoke_agent hermes').find((span) => span.parentSpanId === server.spanId);
    expect(turn?.attributes).toMatchObject({
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.conversation.id': session,
    });
    const tool = named(spans, 'execute_tool read_file').find((span) => span.parentSpanId === turn?.spanId);
    expect(tool?.attributes).toMatchObject({
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'read_file',
    });
    const requests = named(spans, `chat ${MODEL}`);
    const firstTurn = requests.filter((span) => span.parentSpanId === turn?.spanId);
    // The tool call (200), the answer refused for its replayed reasoning_details (400), its retry (200).
    expect(firstTurn.map((span) => span.attributes['http.response.status_code'])).toEqual([200, 400, 200]);
    for (const span of requests) {
      expect(span.kind).toBe(3);
      expect(span.attributes).toMatchObject({
        'gen_ai.operation.name': 'chat',
        'gen_ai.provider.name': 'openrouter',
        'gen_ai.request.model': MODEL,
        'server.address': '127.0.0.1',
        'hermes.replay.padded': expect.any(Number),
        'hermes.replay.dropped': expect.any(Number),
        'hermes.replay.restored': expect.any(Number),
      });
      expect(Array.isArray(span.attributes['hermes.replay.carriers_sent'])).toBe(true);
    }
    // The refused request, then its retry: the recovery is on the refused one.
    const refused = requests.find((span) => span.attributes['http.response.status_code'] === 400);
    expect(refused?.attributes).toMatchObject({
      'error.type': 'BadRequestError',
      'hermes.recovery.row': 'field-verdict',
      'hermes.learned.kind': 'verdict',
      'hermes.verdicts_learned': 2,
    });
    const answered = requests.find((span) => span.attributes['gen_ai.usage.output_tokens'] !== undefined);
    expect(answered?.attributes).toMatchObject({ 'gen_ai.response.model': MODEL, 'http.response.status_code': 200 });
    expect(answered?.attributes['gen_ai.response.finish_reasons']).toEqual(expect.any(Array));
    const messagesServer = named(spans, 'POST /v1/messages')[0] as ReceivedSpan;
    expect(requests.some((span) => span.parentSpanId === messagesServer.spanId)).toBe(true);
    expect(messagesServer.attributes['gen_ai.usage.output_tokens']).toBeGreaterThan(0);
    expect(BigInt(messagesServer.endTimeUnixNano)).toBeGreaterThanOrEqual(
      BigInt(requests.find((span) => span.parentSpanId === messagesServer.spanId)?.endTimeUnixNano ?? '0'),
    );
    // Nothing secret, nothing said.
    const raw = receiver.raw();
    expect(raw).not.toContain(CANARY_KEY);
    expect(raw).not.toContain(CANARY_TEXT);
    expect(raw).not.toContain(TOKEN);
    expect(raw).not.toContain('gen_ai.input.messages');
  });

  it('with content capture on, spans carry the messages but still no key', async () => {
    const receiver = await startOtlpReceiver();
    e2e.defer(() => receiver.close());
    const { gateway } = await tracedGateway(receiver, { OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: 'true' });
    const answer = await postJson(`${gateway.url}/v1/chat/completions`, {
      model: MODEL,
      messages: [{ role: 'user', content: `say ${CANARY_TEXT}` }],
    });
    expect(answer.status).toBe(200);
    const spans = await receiver.waitFor((found) => named(found, `chat ${MODEL}`).length > 0);
    const request = named(spans, `chat ${MODEL}`)[0] as ReceivedSpan;
    const input = JSON.parse(request.attributes['gen_ai.input.messages'] as string) as {
      role: string;
      parts: unknown[];
    }[];
    expect(input.at(-1)).toEqual({ role: 'user', parts: [{ type: 'text', content: `say ${CANARY_TEXT}` }] });
    expect(JSON.parse(request.attributes['gen_ai.output.messages'] as string)[0].role).toBe('assistant');
    expect(request.attributes['gen_ai.system_instructions']).toEqual(expect.any(String));
    expect(receiver.raw()).not.toContain(CANARY_KEY);
  });

  it('hermes chat sends its turn over OTLP/HTTP protobuf by default, and nothing without OTEL_* set', async () => {
    const receiver = await startOtlpReceiver();
    e2e.defer(() => receiver.close());
    const { emulator, sandbox } = await e2e.chatRoute({ persona: 'deepseek' }, 'deepseek', 'deepseek-v4-flash');
    const route = routeArgs('deepseek', 'deepseek-v4-flash', emulator.baseUrl, CANARY_KEY);
    const traced = await runHermes(['chat', '-q', `read the file notes.txt ${CANARY_TEXT}`, ...route], sandbox, {
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint,
    });
    expect(traced.code, traced.stderr).toBe(0);
    // The process flushed its spans before it exited.
    const exports = receiver.exports.filter((entry) => entry.path === '/v1/traces');
    expect(exports.length).toBeGreaterThan(0);
    expect(exports.every((entry) => entry.contentType === 'application/x-protobuf')).toBe(true);
    const raw = receiver.raw();
    for (const text of [
      'invoke_agent hermes',
      'chat deepseek-v4-flash',
      'execute_tool read_file',
      'gen_ai.usage.input_tokens',
      'hermes.replay.carriers_sent',
    ]) {
      expect(raw).toContain(text);
    }
    expect(raw).not.toContain(CANARY_KEY);
    expect(raw).not.toContain(CANARY_TEXT);
    const count = receiver.exports.length;
    const plain = await runHermes(['chat', '-q', 'hello', ...route], sandbox);
    expect(plain.code).toBe(0);
    expect(receiver.exports.length).toBe(count);
  });
});
