import { newSessionId } from '../core/ids.js';
import type { ProbeAcpAgent } from './probe-acp-agents.js';
import type { OpenedWayIn, ProbeConversation, ProbeEnvironment, ProbeWayIn } from './probe-types.js';
import { compactProbeSession, probeSessionFields } from './probe-way-cli.js';

/**
 * ACP as a way in (SPEC §26.9): an editor, played by the ACP library's client side, driving
 * `hermes acp` processes (probe-acp-agents.ts). The probe stores an empty probe session on the
 * route and the editor opens it with `session/load`, as it opens any stored session, then every
 * turn is a `session/prompt`: the answer and the reasoning are what the `agent_message_chunk` and
 * `agent_thought_chunk` updates showed, the tool call is run after the editor's permission. A
 * copy or a branch is `hermes sessions branch` of the stored session, compaction is `hermes
 * sessions compress`; either is then loaded in the same agent. A resume is `session/load` in
 * another agent process, one that never served the conversation.
 */

/** `hermes acp`: the probe's conversations as an editor's threads. */
export const ACP_WAY_IN: ProbeWayIn = {
  name: 'acp',
  label: 'hermes acp',
  agentProcesses: true,
  async open(environment: ProbeEnvironment): Promise<OpenedWayIn> {
    const sessions: string[] = [];
    const { store, acpAgents } = environment;
    const copy = async (sessionId: string, title: string): Promise<string> => {
      const child = await store.forkSession(sessionId, { title });
      sessions.push(child.id);
      return child.id;
    };
    const conversation = (agent: ProbeAcpAgent, sessionId: string): ProbeConversation => {
      let loaded = false;
      return {
        async turn(text) {
          if (!loaded) await agent.load(sessionId, environment.workspace);
          loaded = true;
          const answer = await agent.prompt(sessionId, text);
          // ACP reports no token counts: requests only (one, and one more per tool call).
          const usage = { input: 0, output: 0, requests: 1 + answer.toolCalls };
          return { answer: answer.text, reasoning: answer.thoughts, usage };
        },
        fork: async () => conversation(agent, await copy(sessionId, 'continuity probe (scenario)')),
        branch: async () => conversation(agent, await copy(sessionId, 'continuity probe (branch)')),
        async compact() {
          const next = await compactProbeSession(environment, sessionId);
          if (!sessions.includes(next)) sessions.push(next);
          return { conversation: conversation(agent, next), usage: { input: 0, output: 0, requests: 1 } };
        },
        resume: async () => conversation(await acpAgents.fresh(), sessionId),
      };
    };
    return {
      async start() {
        const id = newSessionId();
        await store.createSession({ id, ...probeSessionFields(environment.route, 'acp') });
        sessions.push(id);
        return conversation(await acpAgents.live(), id);
      },
      sessionIds: () => [...sessions],
      // The processes are the caller's (shared by every probe it runs).
      close: async () => undefined,
    };
  },
};
