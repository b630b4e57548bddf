import { describe, expect, it } from 'vitest';
import type { AssistantMessage, Message } from '../../src/core/message.js';
import { openPostgresSessionStore } from '../../src/storage/postgres-session-store.js';
import { createTestDatabase, skipWithoutPostgres } from '../storage/postgres-test-database.js';
import { toolPairingProblem, type GatedProvider } from '../support/gated-provider.js';
import { type GatewayProcess, routeArgs, useE2e } from '../support/e2e.js';

/**
 * A gateway fleet on PostgreSQL (SPEC §23.6): two `hermes gateway` processes on one database,
 * 20 sessions × 5 tool-calling turns sent alternately to both, one gateway killed with SIGKILL
 * while turns are in flight on it and restarted. Clients retry a failed turn on the other
 * gateway with the same `Idempotency-Key`. Every session's stored order is valid, no turn is
 * lost or duplicated, and the reasoning carriers are byte-identical to a single-process run.
 */

const SESSIONS = 20;
const TURNS = 5;
const PROMPT = 'read the file notes.txt';

const e2e = useE2e();

/** `hermes gateway` on an ephemeral loopback port, its provider behind `provider`. */
function startGatewayProcess(databaseUrl: string, providerBaseUrl: string): Promise<GatewayProcess> {
  return e2e.gateway(routeArgs('deepseek', 'deepseek-v4-flash', providerBaseUrl), e2e.sandbox(), {
    HERMES_DATABASE_URL: databaseUrl,
  });
}

/** One turn; resolves with the session id, or throws when the gateway failed or vanished. */
async function sendTurn(url: string, sessionId: string | undefined, key: string): Promise<string> {
  const response = await fetch(`${url}/v1/chat/completions`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'idempotency-key': key,
      ...(sessionId ? { 'x-hermes-session-id': sessionId } : {}),
    },
    body: JSON.stringify({ model: 'deepseek-v4-flash', messages: [{ role: 'user', content: PROMPT }] }),
  });
  const body = (await response.json()) as { session_id?: string; error?: { message: string } };
  if (response.status !== 200) throw new Error(`HTTP ${response.status}: ${body.error?.message}`);
  return body.session_id as string;
}

/** The carriers and shape of every stored assistant message, for comparing two runs byte for byte. */
function carriersOf(messages: readonly Message[]): string[] {
  return messages.map((message) => {
    if (message.role !== 'assistant') return `${message.role}:${message.role === 'tool' ? message.content : ''}`;
    const assistant = message as AssistantMessage;
    return JSON.stringify({
      content: assistant.content,
      reasoning: assistant.reasoning,
      reasoning_content: assistant.reasoning_content,
      reasoning_details: assistant.reasoning_details,
      tool_calls: assistant.tool_calls,
    });
  });
}

interface Fleet {
  gateways: GatewayProcess[];
  providers: GatedProvider[];
}

/**
 * Runs the workload: SESSIONS sessions concurrently, TURNS turns each, turn t of session s sent
 * to gateway (s + t) % gateways. A failed turn is retried on the other gateway with its key
 * (bounded). `midRun` runs once after `killAfter` turns completed.
 */
interface WorkloadState {
  down: Set<number>;
  inFlight: number[];
  /** Why each turn was sent again (its gateway died, or the machine dropped a connection). */
  retries: string[];
}

async function runWorkload(fleet: Fleet, midRun?: { killAfter: number; run: (state: WorkloadState) => Promise<void> }) {
  const sessionIds: string[] = new Array<string>(SESSIONS);
  let completed = 0;
  let midRunDone: Promise<void> | null = null;
  const down = new Set<number>();
  const inFlight = fleet.gateways.map(() => 0);
  const pick = (preferred: number) => {
    if (!down.has(preferred)) return preferred;
    return fleet.gateways.findIndex((_gateway, index) => !down.has(index));
  };
  const state: WorkloadState = { down, inFlight, retries: [] };
  await Promise.all(
    Array.from({ length: SESSIONS }, async (_unused, session) => {
      for (let turn = 0; turn < TURNS; turn += 1) {
        const key = `session-${session}-turn-${turn}`;
        let target = pick((session + turn) % fleet.gateways.length);
        for (let attempt = 0; ; attempt += 1) {
          const gateway = fleet.gateways[target] as GatewayProcess;
          const index = target;
          inFlight[index] = (inFlight[index] ?? 0) + 1;
          try {
            sessionIds[session] = await sendTurn(gateway.url, sessionIds[session], key);
            break;
          } catch (error) {
            if (attempt >= 6) throw error;
            state.retries.push(`${key} on gateway ${index}: ${(error as Error).message}`);
            target = pick((target + 1) % fleet.gateways.length);
          } finally {
            inFlight[index] = (inFlight[index] ?? 1) - 1;
          }
        }
        completed += 1;
        if (midRun && completed === midRun.killAfter) midRunDone = midRun.run(state);
      }
    }),
  );
  await midRunDone;
  return { sessionIds, retries: state.retries };
}

describe.skipIf(skipWithoutPostgres())('a gateway fleet on PostgreSQL', () => {
  it('two gateways, 20 sessions x 5 tool turns alternately, one killed and restarted: nothing lost, duplicated or reordered', async () => {
    const emulator = await e2e.chat({ persona: 'deepseek' });

    // The single-process run the fleet must match byte for byte.
    const single = await createTestDatabase();
    e2e.defer(single.drop);
    const singleProvider = await e2e.gated(emulator.baseUrl);
    const singleFleet: Fleet = {
      gateways: [await startGatewayProcess(single.url, singleProvider.baseUrl)],
      providers: [singleProvider],
    };
    const { sessionIds: singleIds } = await runWorkload(singleFleet);

    const shared = await createTestDatabase();
    e2e.defer(shared.drop);
    const providers = [await e2e.gated(emulator.baseUrl), await e2e.gated(emulator.baseUrl)];
    const fleet: Fleet = {
      gateways: [
        await startGatewayProcess(shared.url, (providers[0] as GatedProvider).baseUrl),
        await startGatewayProcess(shared.url, (providers[1] as GatedProvider).baseUrl),
      ],
      providers,
    };
    let killedWhileHolding = 0;
    const { sessionIds: fleetIds, retries } = await runWorkload(fleet, {
      killAfter: 30,
      async run(state) {
        // Park every turn running on gateway 0 at its provider, then kill it: each of those
        // turns has stored its user message (and maybe a tool round) but not its answer.
        const provider = providers[0] as GatedProvider;
        provider.close();
        const parked = () => provider.held > 0 && provider.held === state.inFlight[0];
        for (let poll = 0; poll < 3000 && !parked(); poll += 1) {
          await new Promise((resolve) => setTimeout(resolve, 10));
        }
        // From here no new turn goes to gateway 0 until it is back.
        state.down.add(0);
        killedWhileHolding = provider.held;
        const victim = fleet.gateways[0] as GatewayProcess;
        victim.process.kill('SIGKILL');
        await victim.exited;
        provider.dropHeld();
        provider.open();
        fleet.gateways[0] = await startGatewayProcess(shared.url, provider.baseUrl);
        state.down.delete(0);
      },
    });
    expect(killedWhileHolding).toBeGreaterThan(0);
    // Every turn parked on the killed gateway was sent again (a loaded machine may add a few
    // retries of its own: a dropped loopback connection); none was answered with 409 busy.
    expect(retries.length, retries.join('\n')).toBeGreaterThanOrEqual(killedWhileHolding);
    expect(
      retries.filter((reason) => reason.includes('HTTP 409')),
      retries.join('\n'),
    ).toEqual([]);

    const singleStore = openPostgresSessionStore(single.url);
    const fleetStore = openPostgresSessionStore(shared.url);
    e2e.defer(() => singleStore.close());
    e2e.defer(() => fleetStore.close());
    expect(await fleetStore.listSessions()).toHaveLength(SESSIONS);
    for (let session = 0; session < SESSIONS; session += 1) {
      const stored = await fleetStore.listMessages(fleetIds[session] as string);
      expect(toolPairingProblem(stored as unknown as Record<string, unknown>[]), `session ${session}`).toBeNull();
      const users = stored.filter((message) => message.role === 'user') as (Message & { _turn_key?: string })[];
      expect(users.map((message) => message._turn_key)).toEqual(
        Array.from({ length: TURNS }, (_unused, turn) => `session-${session}-turn-${turn}`),
      );
      // The gateway's default system prompt first (docs/gateway.md), then the turns.
      expect(stored.map((message) => message.role)).toEqual([
        'system',
        ...Array.from({ length: TURNS }, () => ['user', 'assistant', 'tool', 'assistant']).flat(),
      ]);
      const baseline = await singleStore.listMessages(singleIds[session] as string);
      expect(carriersOf(stored), `session ${session}`).toEqual(carriersOf(baseline));
      expect(await fleetStore.readLease(fleetIds[session] as string)).toBeNull();
    }
    // Private keys never reach a provider.
    expect(emulator.requests.some((request) => request.raw.includes('_turn_key'))).toBe(false);
  }, 600_000);

  it('a verdict learned by one gateway is used by the next request on the other', async () => {
    const emulator = await e2e.chat({ persona: 'openrouter', rejectKeys: ['reasoning_details'] });
    const database = await createTestDatabase();
    e2e.defer(database.drop);
    const start = async () =>
      (
        await e2e.gateway(routeArgs('openrouter', 'z-ai/glm-5', emulator.baseUrl), e2e.sandbox(), {
          HERMES_DATABASE_URL: database.url,
        })
      ).url;
    const [first, second] = [await start(), await start()];
    await sendTurn(first, undefined, 'a');
    const learnedAt = emulator.requests.findIndex((request) => request.status >= 400);
    expect(learnedAt).toBeGreaterThanOrEqual(0);
    const before = emulator.requests.length;
    await sendTurn(second, undefined, 'b');
    const fromSecond = emulator.requests.slice(before);
    expect(fromSecond.length).toBeGreaterThan(1);
    expect(fromSecond.every((request) => request.status === 200)).toBe(true);
    expect(fromSecond.some((request) => request.raw.includes('reasoning_details'))).toBe(false);
  });
});
