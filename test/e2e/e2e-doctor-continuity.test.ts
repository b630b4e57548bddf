import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseJson, runHermes, useE2e } from '../support/e2e.js';
import { hasTmux, openTerminal } from '../support/terminal.js';

/**
 * `hermes doctor --probe continuity` through the real binary (SPEC §26.5): `kept` on routes that
 * read reasoning, `not-read` on the strict ones, `lost` where a route row sends nothing to a route
 * that needs it, `error` when requests fail; the `--json` shape and exit codes; the probe's
 * sessions hidden from `sessions list`; the cost question before a real route.
 */

const e2e = useE2e();

interface ProbeJson {
  route: { provider: string; model: string; baseUrl: string; api: string };
  verdict: string;
  scenarios: { name: string; verdict: string; detail: string }[];
}

const SCENARIOS = ['tool-loop', 'resume', 'compaction', 'branch'];

function verdicts(report: ProbeJson): Record<string, string> {
  return Object.fromEntries(report.scenarios.map((scenario) => [scenario.name, scenario.verdict]));
}

describe('hermes doctor --probe continuity', () => {
  it('kept on a route that reads reasoning; --json shape exactly; resume from a new process; sessions hidden', async () => {
    const sandbox = e2e.sandbox();
    const run = await runHermes(
      ['doctor', '--probe', 'continuity', '--provider', 'emulator:deepseek', '--json'],
      sandbox,
    );
    expect(run.code).toBe(0);
    const report = parseJson<ProbeJson>(run);
    expect(Object.keys(report)).toEqual(['route', 'verdict', 'scenarios']);
    expect(Object.keys(report.route)).toEqual(['provider', 'model', 'baseUrl', 'api']);
    expect(report.route).toMatchObject({
      provider: 'emulator:deepseek',
      model: 'deepseek-v4-flash',
      api: 'chat_completions',
    });
    expect(report.verdict).toBe('kept');
    expect(report.scenarios.map((scenario) => scenario.name)).toEqual(SCENARIOS);
    for (const scenario of report.scenarios) {
      expect(Object.keys(scenario)).toEqual(['name', 'verdict', 'detail']);
      expect(scenario).toMatchObject({
        verdict: 'kept',
        detail: expect.stringContaining("the number in the pick's reasoning"),
      });
    }
    // The resume scenario's request came from another process than the others.
    const pids = new Set(
      readFileSync(join(sandbox.home, 'logs', 'agent.log'), 'utf8')
        .split('\n')
        .filter((line) => line.includes('"routeKey"'))
        .map((line) => (JSON.parse(line) as { pid: number }).pid),
    );
    expect(pids.size).toBe(2);

    const list = await runHermes(['sessions', 'list'], sandbox);
    expect(list.stdout).toBe('no sessions yet (start one with: hermes chat)\n');
    const probes = parseJson<{ id: string; model_config?: unknown }[]>(
      await runHermes(['sessions', 'list', '--probes', '--json'], sandbox),
    );
    expect(probes.length).toBeGreaterThanOrEqual(4);
    const resume = await runHermes(['chat', '--resume', 'latest', '-q', 'hello'], sandbox);
    expect(resume.code).toBe(2);
    expect(resume.stderr).toContain('no session to resume yet');
  });

  it('not-read on a strict route: the route table sends it nothing by design (exit 0)', async () => {
    const sandbox = e2e.sandbox();
    const run = await runHermes(['doctor', '--probe', 'continuity', '--provider', 'emulator:strict-mistral'], sandbox);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('reasoning sent back: no earlier reasoning is sent back');
    for (const name of SCENARIOS) {
      expect(run.stdout).toMatch(
        new RegExp(`^  ${name} +not-read +answered SECRET=unknown: by design no earlier reasoning`, 'm'),
      );
    }
    expect(run.stdout).toMatch(/^verdict: not-read \(\d+ requests/m);
  });

  it('lost where a config.yaml route row sends nothing to a route that reads reasoning (exit 1)', async () => {
    const sandbox = e2e.sandbox({ config: 'routes:\n  - hosts: [127.0.0.1]\n    carriers: []\n' });
    const run = await runHermes(['doctor', '--probe', 'continuity', '--provider', 'emulator:local', '--json'], sandbox);
    expect(run.code).toBe(1);
    const report = parseJson<ProbeJson>(run);
    expect(report.verdict).toBe('lost');
    expect(verdicts(report)).toEqual({ 'tool-loop': 'lost', resume: 'lost', compaction: 'lost', branch: 'lost' });
    expect(report.scenarios[0]?.detail).toBe(
      'answered SECRET=unknown: under a config.yaml route row no earlier reasoning goes back to this route, where the built-in table sends reasoning_content, reasoning',
    );
  });

  it('through the Messages door onto the Anthropic emulator: kept', async () => {
    const sandbox = e2e.sandbox();
    const run = await runHermes(
      ['doctor', '--probe', 'continuity', '--provider', 'emulator:anthropic', '--via', 'messages', '--json'],
      sandbox,
    );
    expect(run.code).toBe(0);
    expect(verdicts(parseJson<ProbeJson>(run))).toEqual({
      'tool-loop': 'kept',
      resume: 'kept',
      compaction: 'kept',
      branch: 'kept',
    });
  });

  it('a real route: the cost is said first; no terminal and no --yes refuses in one line and sends nothing', async () => {
    const emulator = await e2e.chat({ persona: 'deepseek' });
    const sandbox = e2e.sandbox();
    const route = ['--provider', 'deepseek', '--model', 'deepseek-v4-flash', '--base-url', emulator.baseUrl];
    const env = { DEEPSEEK_API_KEY: 'sk-probe-secret' };
    const refused = await runHermes(['doctor', '--probe', 'continuity', ...route], sandbox, env);
    expect(refused.code).toBe(2);
    expect(refused.stdout).toBe('');
    expect(refused.stderr).toMatch(
      /^hermes: the continuity probe sends about 9 requests to deepseek deepseek-v4-flash: about [\d,]+ input and [\d,]+–[\d,]+ output tokens, \$[\d.]+–\$[\d.]+ at .*: pass --yes to run it without a terminal to ask on\n$/,
    );
    expect(emulator.requests).toHaveLength(0);

    const run = await runHermes(['doctor', '--probe', 'continuity', ...route, '--yes'], sandbox, env);
    expect(run.code).toBe(0);
    expect(run.stderr).toContain('the continuity probe sends about 9 requests');
    expect(run.stdout).toMatch(/^verdict: kept \(9 requests, [\d,]+ input and [\d,]+ output tokens\)$/m);
    expect(run.stdout + run.stderr).not.toContain('sk-probe-secret');
    expect(emulator.requests.length).toBeGreaterThanOrEqual(9);
  });

  it.skipIf(!hasTmux)(
    'a real route on a terminal: the cost question; no sends nothing, yes runs the probe',
    async () => {
      const emulator = await e2e.chat({ persona: 'deepseek' });
      const sandbox = e2e.sandbox();
      const args = ['--probe', 'continuity', '--provider', 'deepseek', '--base-url', emulator.baseUrl];
      const env = { DEEPSEEK_API_KEY: 'sk-probe' };
      const declined = openTerminal(args, sandbox, env, 'doctor');
      try {
        await declined.waitFor(/output tokens, \$[\d.]+–\$[\d.]+ at .*\. Run it\? \[y\/N\]/);
        await declined.type('n');
        await declined.keys('Enter');
        expect(await declined.exited()).toBe(1);
        expect(await declined.screen()).toContain('hermes: the continuity probe was not run');
        expect(emulator.requests).toHaveLength(0);
      } finally {
        await declined.close();
      }
      const accepted = openTerminal(args, sandbox, env, 'doctor');
      try {
        await accepted.waitFor(/Run it\? \[y\/N\]/);
        await accepted.type('y');
        await accepted.keys('Enter');
        expect(await accepted.exited()).toBe(0);
        expect(await accepted.screen()).toMatch(/verdict: kept/);
      } finally {
        await accepted.close();
      }
    },
  );

  it('error when requests fail, with the provider text (exit 1)', async () => {
    const faults = Array.from({ length: 12 }, () => ({ kind: 'status' as const, status: 400 }));
    const emulator = await e2e.chat({ persona: 'deepseek', faults });
    const sandbox = e2e.sandbox();
    const run = await runHermes(
      ['doctor', '--probe', 'continuity', '--provider', 'deepseek', '--base-url', emulator.baseUrl, '--yes', '--json'],
      sandbox,
      { DEEPSEEK_API_KEY: 'sk-probe' },
    );
    expect(run.code).toBe(1);
    const report = parseJson<ProbeJson>(run);
    expect(report.verdict).toBe('error');
    for (const scenario of report.scenarios) {
      expect(scenario.verdict).toBe('error');
      expect(scenario.detail).toMatch(/^the conversation before the scenarios failed: .*400/);
    }
  });

  it('usage errors: an unknown probe or way in, a continuity flag without the probe (exit 2)', async () => {
    const sandbox = e2e.sandbox();
    const unknown = await runHermes(['doctor', '--probe', 'speed'], sandbox);
    expect(unknown).toMatchObject({ code: 2, stderr: expect.stringContaining('unknown probe "speed"') });
    const way = await runHermes(
      ['doctor', '--probe', 'continuity', '--via', 'fax', '--provider', 'emulator:local'],
      sandbox,
    );
    expect(way).toMatchObject({ code: 2, stderr: expect.stringContaining('unknown way in "fax"') });
    const misplaced = await runHermes(['doctor', '--json'], sandbox);
    expect(misplaced).toMatchObject({ code: 2, stderr: 'hermes: --json belongs to --probe continuity\n' });
  });

  it('--help explains the probe', async () => {
    const help = await runHermes(['doctor', '--help'], e2e.sandbox());
    expect(help.code).toBe(0);
    for (const text of ['--probe continuity', 'tool-loop', 'not-read', '--yes', '--via <way>', '--matrix']) {
      expect(help.stdout).toContain(text);
    }
  });

  it('hermes model --json: per known route, whether it reads reasoning and in which fields', async () => {
    const run = await runHermes(['model', '--json'], e2e.sandbox());
    const providers = parseJson<{
      providers: {
        provider: string;
        routes: {
          model: string;
          reads_reasoning: boolean;
          reasoning_scope: string;
          carriers: string[];
          must_echo: string | null;
        }[];
      }[];
    }>(run).providers;
    const routes = (id: string) => providers.find((entry) => entry.provider === id)?.routes ?? [];
    expect(routes('deepseek')[0]).toMatchObject({
      reads_reasoning: true,
      reasoning_scope: 'all',
      carriers: ['reasoning_content'],
      must_echo: 'deepseek',
    });
    expect(routes('mistral')[0]).toMatchObject({ reads_reasoning: false, reasoning_scope: 'none', carriers: [] });
    expect(routes('anthropic').find((route) => route.model === 'claude-sonnet-4-5')).toMatchObject({
      reasoning_scope: 'loop',
    });
  });
});
