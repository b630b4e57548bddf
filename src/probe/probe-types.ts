import type { Route } from '../core/route.js';
import type { Timeouts } from '../core/timeouts.js';
import type { Logger } from '../logging/logger.js';
import type { CompactionSettings } from '../runtime/compaction-plan.js';
import type { RouteOverride } from '../replay/replay-route-profile.js';
import type { SessionStore } from '../storage/session-store.js';
import type { ProbeAcpAgents } from './probe-acp-agents.js';

/**
 * The continuity probe's vocabulary (SPEC §26.5): the scenarios, the verdicts, the route a probe
 * runs on, and the shape every way in (the CLI, each gateway door) implements.
 */

/** The scenarios, in the order they run and are reported. */
export const PROBE_SCENARIOS = ['tool-loop', 'resume', 'compaction', 'branch'] as const;

/** One scenario. */
export type ProbeScenario = (typeof PROBE_SCENARIOS)[number];

/** A verdict: the number came back, did not, the route table sends nothing by design, or the scenario failed. */
export type ProbeVerdict = 'kept' | 'lost' | 'not-read' | 'error';

/** Every verdict, in the order reports count them. */
export const PROBE_VERDICTS: readonly ProbeVerdict[] = ['kept', 'lost', 'not-read', 'error'];

/** One scenario's outcome. */
export interface ScenarioReport {
  name: ProbeScenario;
  verdict: ProbeVerdict;
  /** One line: what was asked, what came back, why. */
  detail: string;
}

/** Tokens a probe used, as the providers reported them. */
export interface ProbeUsage {
  input: number;
  output: number;
  requests: number;
}

/** What a probe found. */
export interface ProbeReport {
  verdict: ProbeVerdict;
  scenarios: ScenarioReport[];
  usage: ProbeUsage;
  /** Every session the probe stored (all marked as probes). */
  sessionIds: string[];
}

/** The route under probe, ready to send (an in-process emulator's included). */
export interface ProbeRoute {
  route: Route;
  apiKey: string | undefined;
  /** Origins the route's requests go to instead (in-process emulators, `HERMES_CONNECT_TO`). */
  connectTo?: ReadonlyMap<string, string> | undefined;
  /** What a session stores as its route when it differs (in-process emulators: `emulator:PERSONA`). */
  sessionRoute?: { provider: string; baseUrl: string | null } | undefined;
}

/** Settings from config.yaml the probe's requests follow. */
export interface ProbeSettings {
  routeOverrides?: readonly RouteOverride[] | undefined;
  echoOptIn?: boolean | undefined;
  timeouts?: Timeouts | undefined;
  compaction?: CompactionSettings | undefined;
}

/** Where a probe runs: the store its sessions go to and what it may write there. */
export interface ProbeEnvironment {
  store: SessionStore;
  route: ProbeRoute;
  settings: ProbeSettings;
  /** A directory the probe's tool and gateway may use as their workspace. */
  workspace: string;
  logger: Logger;
  /**
   * The same conversation's store seen from a fresh start (`resume`): a new process
   * (`hermes doctor`), or a newly opened store with nothing kept in memory (the matrix).
   */
  freshStart: FreshStart;
  /** The `hermes acp` processes the ACP way in talks to (started on first use; the caller closes them). */
  acpAgents: ProbeAcpAgents;
}

/** How `resume` continues a conversation from a fresh start. */
export interface FreshStart {
  /**
   * The CLI way in: one question in the stored session `sessionId`, asked by a fresh runtime
   * (a new `hermes` process, or a newly opened store); its answer.
   */
  askInSession(sessionId: string, text: string): Promise<ProbeTurn>;
  /** The gateway ways in: a store opened anew for a fresh gateway; closed by the caller. */
  openStore(): Promise<SessionStore>;
}

/** One answered user turn (the tool loop included). */
export interface ProbeTurn {
  answer: string;
  /** Readable reasoning of every request of the turn, in order ('' when the route returns none). */
  reasoning: string;
  usage: ProbeUsage;
}

/** A conversation as its client holds it on one way in. */
export interface ProbeConversation {
  /** One user turn; the client runs `probe_wait` when the model calls it. */
  turn(text: string): Promise<ProbeTurn>;
  /**
   * A copy that goes on separately as the same conversation, so a scenario never sees another's
   * answer: a copy of the stored session on the CLI (a session is its history), the client's
   * history under the same session id at a door (the client continues; the gateway's mirror is
   * the same session).
   */
  fork(): Promise<ProbeConversation>;
  /** A branch as a user makes one (`hermes sessions branch`, a client forking under a new session id). */
  branch(): Promise<ProbeConversation>;
  /** The conversation compacted: earlier turns summarised, the last turn kept verbatim. */
  compact(): Promise<{ conversation: ProbeConversation; usage: ProbeUsage }>;
  /** The same conversation continued from a fresh start. */
  resume(): Promise<ProbeConversation>;
}

/** A way in opened on one route: conversations, and what it stored. */
export interface OpenedWayIn {
  start(): Promise<ProbeConversation>;
  /** Sessions stored so far (the probe marks them). */
  sessionIds(): string[];
  close(): Promise<void>;
}

/**
 * A way into Hermes: the CLI, a gateway door, or an ACP agent. Adding one is one entry of
 * `PROBE_WAYS_IN` with an `open` that speaks its protocol.
 */
export interface ProbeWayIn {
  /** Short id: `cli`, `chat`, `messages`, `responses`, `gemini`, `acp`. */
  name: string;
  /** For people: "hermes chat", "POST /v1/messages", … */
  label: string;
  /**
   * The way in talks to `hermes` processes (`environment.acpAgents`) that open the probe's store
   * themselves: a caller running many probes gives them one store and one pair of processes.
   */
  agentProcesses?: boolean;
  open(environment: ProbeEnvironment): Promise<OpenedWayIn>;
}
