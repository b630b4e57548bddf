import { HermesError } from '../core/errors.js';
import { DEFAULT_TIMEOUTS } from '../core/timeouts.js';
import { newSessionId } from '../core/ids.js';
import type { JsonObject, JsonValue } from '../core/json.js';
import { isJsonObject } from '../core/json.js';
import { SESSION_HEADER } from '../gateway/gateway-chat.js';
import { startGateway, type RunningGateway } from '../gateway/gateway-serve.js';
import { probeMark } from '../storage/session-probe.js';
import type { SessionStore } from '../storage/session-store.js';
import type { DoorProtocol } from './probe-door-protocols.js';
import { PROBE_SUMMARY_PROMPT, PROBE_SYSTEM_PROMPT, PROBE_TOOL_RESULT } from './probe-prompts.js';
import type {
  OpenedWayIn,
  ProbeConversation,
  ProbeEnvironment,
  ProbeTurn,
  ProbeUsage,
  ProbeWayIn,
} from './probe-types.js';
import { PROBE_REASONING } from './probe-way-cli.js';

/**
 * A gateway door as a way in: an in-process gateway on loopback serving the route, and a client
 * that holds the history as the door's real clients do. A scenario's own copy is the client's
 * history under the same session id, a branch forks it under a new one; compaction is the client's own (a summary side request, then the
 * summary and the last turn verbatim, the session id kept, as Claude Code keeps it); a resume
 * sends the same history (as the client reads it back after a restart) to a fresh gateway over a
 * newly opened store. A door whose clients name no session (Gemini) finds the conversation by its
 * history; each copy then continues the conversation the history leads to.
 */

/** Requests one client turn may make before it gives up (the tool call, its answer, and spare). */
const DOOR_TURN_REQUESTS = 4;

/** A way in through `protocol`'s door. */
export function doorWayIn(protocol: DoorProtocol): ProbeWayIn {
  return { name: protocol.name, label: protocol.label, open: (environment) => openDoor(protocol, environment) };
}

interface HeldTurn {
  /** Index in the history of the turn's user item. */
  start: number;
  user: string;
  answer: string;
}

async function openDoor(protocol: DoorProtocol, environment: ProbeEnvironment): Promise<OpenedWayIn> {
  const gateways: RunningGateway[] = [];
  const freshStores: SessionStore[] = [];
  const sessions: string[] = [];
  const start = async (store: SessionStore): Promise<string> => {
    const gateway = await startProbeGateway(environment, store);
    gateways.push(gateway);
    return gateway.url;
  };
  const firstUrl = await start(environment.store);
  let resumedUrl: string | undefined;
  // A door request is one provider request behind the gateway (a recovery retry at most): its limit, twice.
  const limitMs = 2 * (environment.settings.timeouts?.total ?? DEFAULT_TIMEOUTS.total);
  const model = environment.route.route.model;

  // The gateway mirrors a named session: made first, marked as a probe, so it is never listed.
  const newSession = async (title: string): Promise<string | undefined> => {
    if (protocol.sessionHeader === undefined) return undefined;
    const id = newSessionId();
    await environment.store.createSession({ id, title, modelConfig: probeMark(protocol.name) });
    sessions.push(id);
    return id;
  };

  const post = async (url: string, history: readonly JsonValue[], system: string, sessionId?: string) => {
    const headers: Record<string, string> = { 'content-type': 'application/json', ...protocol.headers };
    if (sessionId !== undefined && protocol.sessionHeader !== undefined) headers[protocol.sessionHeader] = sessionId;
    const response = await fetch(`${url}${protocol.path(model)}`, {
      method: 'POST',
      headers,
      body: JSON.stringify(protocol.body(history, { model, system })),
      signal: AbortSignal.timeout(limitMs),
    });
    const streamed = response.ok && protocol.readStream !== undefined;
    const body = streamed ? eventChunks(await response.text()) : ((await response.json().catch(() => null)) as unknown);
    // A stream that fails after it started ends with an error chunk.
    const failed = Array.isArray(body) ? body.find((chunk) => chunk['error'] !== undefined) : undefined;
    if (!response.ok || failed !== undefined || !(Array.isArray(body) || isJsonObject(body))) {
      throw new HermesError(`${protocol.label} answered HTTP ${response.status}: ${errorText(failed ?? body)}`);
    }
    await noteSession(response.headers.get(SESSION_HEADER));
    return Array.isArray(body) && protocol.readStream ? protocol.readStream(body) : protocol.read(body as JsonObject);
  };

  // A door whose clients name no session mirrors each conversation into one it makes itself and
  // names in its answer's header: marked as a probe here, so it is never listed either.
  const noteSession = async (id: string | null): Promise<void> => {
    if (protocol.sessionHeader !== undefined || id === null || sessions.includes(id)) return;
    sessions.push(id);
    await environment.store.patchModelConfig(id, probeMark(protocol.name));
  };

  const conversation = (
    url: string,
    sessionId: string | undefined,
    history: JsonValue[],
    turns: HeldTurn[],
  ): ProbeConversation => {
    // The client's copy of this conversation, sent to `atUrl` under session `id`.
    const copy = (atUrl: string, id: string | undefined, held: JsonValue[] = structuredClone(history)) =>
      conversation(
        atUrl,
        id,
        held,
        turns.map((turn) => ({ ...turn })),
      );
    return {
      async turn(text) {
        const held: HeldTurn = { start: history.length, user: text, answer: '' };
        history.push(protocol.userItem(text));
        const usage: ProbeUsage = { input: 0, output: 0, requests: 0 };
        const reasoning: string[] = [];
        for (let request = 0; request < DOOR_TURN_REQUESTS; request += 1) {
          const answer = await post(url, history, PROBE_SYSTEM_PROMPT, sessionId);
          history.push(...answer.items);
          usage.input += answer.usage.input;
          usage.output += answer.usage.output;
          usage.requests += 1;
          if (answer.reasoning) reasoning.push(answer.reasoning);
          if (answer.calls.length === 0) {
            held.answer = answer.text;
            turns.push(held);
            return { answer: answer.text, reasoning: reasoning.join('\n\n'), usage } satisfies ProbeTurn;
          }
          history.push(...protocol.toolResults(answer.calls, PROBE_TOOL_RESULT));
        }
        throw new HermesError(`no final answer after ${DOOR_TURN_REQUESTS} requests`);
      },
      fork: async () => copy(url, sessionId),
      branch: async () => copy(url, await newSession('continuity probe (branch)')),
      async compact() {
        const last = turns[turns.length - 1];
        if (!last || turns.length < 2) throw new HermesError('nothing to compact: one turn only');
        const transcript = turns
          .slice(0, -1)
          .map((turn) => `user: ${turn.user}\nassistant: ${turn.answer}`)
          .join('\n');
        // A side request without the session, as clients send their summary requests.
        const system = `${PROBE_SUMMARY_PROMPT}\n\n<transcript>\n${transcript}\n</transcript>`;
        const summary = await post(url, [protocol.userItem('Write the summary now.')], system);
        const kept = history.slice(last.start);
        const compacted = [protocol.userItem(`[Summary of the earlier conversation]\n${summary.text}`), ...kept];
        const keptTurn: HeldTurn = { ...last, start: 1 };
        return {
          conversation: conversation(url, sessionId, compacted, [keptTurn]),
          usage: { input: summary.usage.input, output: summary.usage.output, requests: 1 },
        };
      },
      async resume() {
        if (resumedUrl === undefined) {
          const store = await environment.freshStart.openStore();
          freshStores.push(store);
          resumedUrl = await start(store);
        }
        // The history as the client reads it back after its own restart.
        return copy(resumedUrl, sessionId, protocol.resumed?.(history) ?? structuredClone(history));
      },
    };
  };

  return {
    start: async () => conversation(firstUrl, await newSession('continuity probe'), [], []),
    sessionIds: () => [...sessions],
    async close() {
      for (const gateway of gateways.splice(0).reverse()) await gateway.close();
      for (const store of freshStores.splice(0)) await store.close();
    },
  };
}

/** A gateway on a free loopback port serving the probe's route, with the probe's settings. */
function startProbeGateway(environment: ProbeEnvironment, store: SessionStore): Promise<RunningGateway> {
  const { route, settings } = environment;
  return startGateway({
    store,
    route: {
      route: route.route,
      apiKey: route.apiKey,
      connectTo: route.connectTo,
      sessionRoute: route.sessionRoute,
    },
    workspace: environment.workspace,
    yolo: false,
    logger: environment.logger,
    host: '127.0.0.1',
    port: 0,
    turn: {
      reasoning: PROBE_REASONING,
      routeOverrides: settings.routeOverrides ?? [],
      echoOptIn: settings.echoOptIn ?? false,
      timeouts: settings.timeouts,
    },
  });
}

/** The JSON `data:` chunks of a server-sent event stream, in order. */
function eventChunks(text: string): JsonObject[] {
  return text.split('\n').flatMap((line) => {
    if (!line.startsWith('data:')) return [];
    try {
      const chunk = JSON.parse(line.slice('data:'.length)) as unknown;
      return isJsonObject(chunk) ? [chunk] : [];
    } catch {
      return [];
    }
  });
}

/** The error text of an answer body (any door's envelope), on one line. */
function errorText(body: unknown): string {
  const error = isJsonObject(body) ? body['error'] : undefined;
  const message = isJsonObject(error) ? error['message'] : undefined;
  const text = typeof message === 'string' ? message : JSON.stringify(body ?? null);
  return (text.split('\n')[0] ?? '').slice(0, 400);
}
