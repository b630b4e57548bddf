import { RequestError } from '@agentclientprotocol/sdk';
import type { OpenedAcpSession } from '../acp/acp-agent.js';
import { PROBE_SYSTEM_PROMPT } from '../probe/probe-prompts.js';
import { PROBE_MAX_ITERATIONS, PROBE_REASONING, PROBE_RUNTIME_TOOL } from '../probe/probe-way-cli.js';
import type { RouteFlags } from '../runtime/runtime-route.js';
import { isProbeSession } from '../storage/session-probe.js';
import type { SessionRecord } from '../storage/session-store.js';
import type { Tool } from '../tools/tool-types.js';
import type { CliContext } from './cli-context.js';
import { openRoute } from './cli-route.js';
import { chatTurnOptions } from './chat-turn-options.js';
import { PROBE_KEY_VARIABLE } from './doctor-continuity-resume.js';

/**
 * `hermes acp --probe` (hidden): the agent as the continuity probe's ACP way in drives it
 * (SPEC §26.5, docs/continuity.md). Everything is the agent of `hermes acp` — initialize,
 * session/load with its replay, session/prompt with its streamed updates, permission prompts —
 * except what a probe conversation needs to be the same on every way in: it serves stored probe
 * sessions only (each on the route it was stored with), with the probe's system prompt, its one
 * tool `probe_wait` (asking the editor's permission, so the prompt path runs too), reasoning at a
 * low effort, and no MCP servers. An API key given to `hermes doctor --api-key` arrives in the
 * environment, never on the command line.
 */

/** The probe's tool as an editor sees it: it asks for permission, as writing tools do. */
const ACP_PROBE_TOOL: Tool = { ...PROBE_RUNTIME_TOOL, needsApproval: true };

/** Opens a probe session for prompts; anything else is refused. */
export async function openAcpProbeSession(
  flags: RouteFlags,
  context: CliContext,
  target: { session: SessionRecord | null; cwd: string },
): Promise<OpenedAcpSession> {
  const { session } = target;
  if (!session || !isProbeSession(session)) {
    throw RequestError.invalidRequest(
      undefined,
      'hermes acp --probe serves the continuity probe: session/load a probe session',
    );
  }
  const apiKey = process.env[PROBE_KEY_VARIABLE];
  const silent = { write: () => true } as unknown as NodeJS.WritableStream;
  const opened = await openRoute(apiKey === undefined ? flags : { ...flags, apiKey }, context, session, silent);
  const options = chatTurnOptions(context, {
    session,
    sessionId: session.id,
    workspace: target.cwd,
    opened,
    mcp: { tools: undefined, reports: [], close: async () => undefined },
    systemPrompt: PROBE_SYSTEM_PROMPT,
    leaseOwner: 'hermes acp',
    flags: {},
  });
  return {
    workspace: target.cwd,
    options: {
      ...options,
      tools: [ACP_PROBE_TOOL],
      reasoning: PROBE_REASONING,
      reasoningOverrides: undefined,
      maxIterations: PROBE_MAX_ITERATIONS,
      // As on every other way in: the probe compacts when a scenario says so, never by itself.
      compaction: undefined,
    },
    close: () => opened.close(),
  };
}
