import { describe, expect, it } from 'vitest';
import { startInProcessEmulator } from '../../src/cli/cli-emulator-start.js';
import {
  probeAcpAgents,
  type AcpPromptAnswer,
  type ProbeAcpAgent,
  type ProbeAcpAgents,
} from '../../src/probe/probe-acp-agents.js';
import { inProcessFreshStart } from '../../src/probe/probe-fresh-start.js';
import { PROBE_TOOL_LOOP_ASK } from '../../src/probe/probe-prompts.js';
import { runContinuityProbe } from '../../src/probe/probe-run.js';
import { ACP_WAY_IN } from '../../src/probe/probe-way-acp.js';
import { isProbeSession, listUserSessions } from '../../src/storage/session-probe.js';
import { openSessionStore } from '../../src/storage/store-open.js';
import { HERMES_BIN, parseJson, runHermes, useE2e } from '../support/e2e.js';
import { startAcpAgent } from './e2e-acp-helpers.js';
import { emulatorProbeBase } from '../support/probe-environment.js';
import { scaledTimeout } from '../support/timeouts.js';

/**
 * The continuity probe's newer ways in through the real binary (SPEC §26.5, §26.9): `hermes acp`
 * driven by the ACP library's client side — the tool call allowed at a permission prompt, the
 * resume loaded by a second agent process — and `hermes doctor --probe continuity --via gemini`
 * and `--via acp`, their sessions hidden from `sessions list`.
 */

const e2e = useE2e();

interface ProbeJson {
  verdict: string;
  scenarios: { name: string; verdict: string; detail: string }[];
}

/** Which agent answered which prompt, and what the editor saw of it. */
interface Served {
  agent: 'live' | 'fresh';
  text: string;
  answer: AcpPromptAnswer;
}

function recorded(agents: ProbeAcpAgents, served: Served[]): ProbeAcpAgents {
  const wrap = (name: Served['agent'], agent: ProbeAcpAgent): ProbeAcpAgent => ({
    ...agent,
    async prompt(sessionId, text) {
      const answer = await agent.prompt(sessionId, text);
      served.push({ agent: name, text, answer });
      return answer;
    },
  });
  return {
    live: async () => wrap('live', await agents.live()),
    fresh: async () => wrap('fresh', await agents.fresh()),
    close: () => agents.close(),
  };
}

describe('the continuity probe through hermes acp and the Gemini door', () => {
  it(
    'acp on signed Anthropic thinking: kept in every scenario; the tool allowed at a permission prompt; the resume in another agent process',
    async () => {
      const sandbox = e2e.sandbox();
      const emulator = await startInProcessEmulator('anthropic', 'claude-opus-4-8');
      e2e.defer(() => emulator.close());
      const store = openSessionStore({ home: sandbox.home });
      e2e.defer(() => store.close());
      const served: Served[] = [];
      const env: NodeJS.ProcessEnv = { ...process.env, HERMES_HOME: sandbox.home };
      delete env['HERMES_DATABASE_URL'];
      const agents = recorded(
        probeAcpAgents({ command: process.execPath, args: [HERMES_BIN], env }, scaledTimeout(60_000)),
        served,
      );
      e2e.defer(() => agents.close());
      const base = emulatorProbeBase(emulator, sandbox.workspace);
      const report = await runContinuityProbe(ACP_WAY_IN, {
        ...base,
        store,
        freshStart: inProcessFreshStart(() => openSessionStore({ home: sandbox.home }), base),
        acpAgents: agents,
      });
      expect(report.scenarios.map(({ name, verdict }) => [name, verdict])).toEqual([
        ['tool-loop', 'kept'],
        ['resume', 'kept'],
        ['compaction', 'kept'],
        ['branch', 'kept'],
      ]);
      // Warm-ups, pick, tool loop, compaction and branch in one agent; the resume in the other.
      expect(served.map((prompt) => prompt.agent)).toEqual(['live', 'live', 'live', 'live', 'live', 'live', 'fresh']);
      const toolLoop = served.find((prompt) => prompt.text === PROBE_TOOL_LOOP_ASK);
      expect(toolLoop?.answer).toMatchObject({ toolCalls: 1, permissions: 1 });
      // The thoughts the editor was shown are the pick's reasoning, the secret in them.
      expect(served[2]?.answer.thoughts).toMatch(/SECRET=\d{3}/);
      for (const id of report.sessionIds) expect(isProbeSession((await store.getSession(id))!)).toBe(true);
      expect(report.sessionIds.length).toBe(4);
      expect(await listUserSessions(store)).toEqual([]);
    },
    scaledTimeout(120_000),
  );

  it('hermes acp --probe serves probe sessions only, and is not in --help', async () => {
    const sandbox = e2e.sandbox();
    const agent = await startAcpAgent(e2e, sandbox, ['--probe']);
    await expect(agent.agent.request('session/new', { cwd: sandbox.workspace, mcpServers: [] })).rejects.toThrow(
      /serves the continuity probe: session\/load a probe session/,
    );
    const help = await runHermes(['acp', '--help'], sandbox);
    expect(help.stdout).not.toContain('--probe');
  });

  it(
    'hermes doctor --probe continuity --via acp and --via gemini: kept, the probe sessions hidden',
    async () => {
      const sandbox = e2e.sandbox();
      for (const via of ['acp', 'gemini']) {
        const run = await runHermes(
          ['doctor', '--probe', 'continuity', '--via', via, '--provider', 'emulator:gemini', '--json'],
          sandbox,
        );
        expect({ via, code: run.code }).toEqual({ via, code: 0 });
        // One note: the offline emulator; nothing failed on the way.
        expect(run.stderr).toMatch(/^offline: using the built-in emulator \(persona gemini, [^\n]*\n$/);
        const report = parseJson<ProbeJson>(run);
        expect({ via, verdicts: report.scenarios.map((scenario) => scenario.verdict) }).toEqual({
          via,
          verdicts: ['kept', 'kept', 'kept', 'kept'],
        });
      }
      const list = await runHermes(['sessions', 'list'], sandbox);
      expect(list.stdout).toBe('no sessions yet (start one with: hermes chat)\n');
      const probes = parseJson<{ title: string }[]>(
        await runHermes(['sessions', 'list', '--probes', '--json'], sandbox),
      );
      // ACP: the probe's session and its three copies; Gemini: the sessions the door made, titled by their first question.
      expect(probes.filter((session) => session.title.startsWith('continuity probe')).length).toBe(4);
      expect(probes.filter((session) => session.title.startsWith('Warm-up 1')).length).toBe(1);
    },
    scaledTimeout(120_000),
  );
});
