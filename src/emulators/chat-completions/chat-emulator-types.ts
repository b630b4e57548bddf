import type { EmulatedEffortRules } from '../shared/emulator-effort.js';
import type { Fault } from '../shared/emulator-faults.js';
import type { ReceivedRequest, RequestLogLimits } from '../shared/emulator-request-log.js';

export type { Fault } from '../shared/emulator-faults.js';
export type { ReceivedRequest } from '../shared/emulator-request-log.js';

/** Every chat-completions persona, in the order `hermes emulate chat --help` lists them. */
export const CHAT_PERSONA_NAMES = [
  'openrouter',
  'deepseek',
  'strict-mistral',
  'strict-groq',
  'strict-cerebras',
  'strict-fireworks',
  'copilot',
  'gemini-openai',
  'local',
] as const;

/** A provider behaviour the chat-completions emulator can play. */
export type ChatPersonaName = (typeof CHAT_PERSONA_NAMES)[number];

/** True when `name` is a persona name. */
export function isChatPersonaName(name: string): name is ChatPersonaName {
  return (CHAT_PERSONA_NAMES as readonly string[]).includes(name);
}

/** Options of `startChatEmulator` (with the emulated model's effort rules, `acceptEfforts` / `alwaysThinks`). */
export interface ChatEmulatorOptions extends EmulatedEffortRules {
  /** How much of the request log to keep (default: all of it). */
  requestLog?: RequestLogLimits | undefined;
  persona: ChatPersonaName;
  /** Default 0: an ephemeral port. */
  port?: number;
  /** Default `127.0.0.1`. */
  host?: string;
  /**
   * Extra assistant-message / tool-call / tool-call-function keys this instance rejects with the
   * persona's exact unknown-field error (even keys the persona otherwise accepts, e.g. OpenRouter
   * rejecting `reasoning_details`). A rejected key is never also required.
   */
  rejectKeys?: string[];
  /** Reject every request that carries any reasoning carrier (the "rejects every retry" case). */
  rejectAlways?: boolean;
  /** Faults queued in order; each is consumed by one chat-completions request. */
  faults?: Fault[];
  /** Context window in tokens; a request estimated above it gets the persona's context-length 400. */
  contextWindow?: number;
  /** Model id listed by `GET /v1/models` and used when a request names none. */
  model?: string;
}

/** A running chat-completions emulator. */
export interface RunningChatEmulator {
  /** `http://HOST:PORT/v1`. */
  baseUrl: string;
  port: number;
  persona: ChatPersonaName;
  /** Every chat-completions request received, in arrival order (control endpoints and `/v1/models` excluded). */
  requests: ReceivedRequest[];
  /** Queues a fault for a later request. */
  addFault(fault: Fault): void;
  /** Stops the server and drops open connections. */
  close(): Promise<void>;
}
