import { execFile, execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { asResumedByGeminiCli, geminiDoorConversation, spoilHandles } from '../gateway/front-door-gemini-helpers.js';
import { continuitySentence } from '../gateway/front-door-clients-helpers.js';
import { runHermes, useE2e } from '../support/e2e.js';
import { scaledTimeout } from '../support/timeouts.js';
import { GATEWAY_TOKEN, startFrontDoorFleet, upstreamStatuses, type FrontDoorFleet } from './e2e-front-door-helpers.js';

/**
 * The Gemini door end to end (SPEC §26.9, §26.1): a real `hermes gateway` (token required, taken
 * as Google's API key) in front of the DeepSeek, Gemini, OpenRouter and Anthropic emulators.
 *
 * - `@google/genai` holding `contents` the way Gemini CLI does: a tool turn, a turn resumed the
 *   way Gemini CLI resumes (no handle left), and a model switch on each resume; every route
 *   reads its own turns intact, no turn is ever altered, no upstream answers anything but 200;
 *   tampered and foreign handles are dropped with a decision `replay preview --explain` shows.
 * - The real Gemini CLI, headless, when one is installed (`HERMES_GEMINI_CLI` names its binary,
 *   or `gemini` is on the PATH; skipped otherwise): `gemini -p`, then `gemini --resume latest -p`
 *   on each route in turn. It sends no session id: the gateway finds the conversation by its
 *   history, every time the same one.
 */

const e2e = useE2e();

/** The model names of the fleet the Gemini door is tried on, in switch order. */
const ROUTES = ['deepseek', 'gemini', 'openrouter', 'claude-sonnet-4-5'] as const;

/**
 * What a route reads back of the turns before it (origin scoping, SPEC §23.2): intact; the turns
 * another model answered are counted apart (SPEC §26.8).
 */
function expectNoTurnAltered(label: string, text: string | undefined): void {
  expect({ label, sentence: continuitySentence(text ?? '') }).toEqual({
    label,
    sentence: expect.stringMatching(
      /^Reasoning continuity: intact \(\d+\/\d+\)\.( Foreign turns: \d+ \(not issued by this model; not counted\)\.)?$/,
    ),
  });
}

describe('hermes gateway, the Gemini door, with @google/genai', () => {
  it('a tool turn, a resumed turn and a model switch on every route: intact where the route reads, 0 4xx; bad handles dropped with a decision', async () => {
    const fleet = await startFrontDoorFleet(e2e);
    const conversation = geminiDoorConversation(fleet.gateway.url, 'deepseek', { apiKey: GATEWAY_TOKEN });
    for (const model of ROUTES) {
      const [call, answer] = await conversation.turn('read the file notes.txt', { stream: true, model });
      expect({ model, calls: call?.toolCalls, handle: call?.handle }).toEqual({
        model,
        calls: 1,
        handle: expect.stringMatching(/^hermes\.1\./),
      });
      expectNoTurnAltered(`${model} tool turn`, answer?.text);
      asResumedByGeminiCli(conversation.contents);
      const [resumed] = await conversation.turn('thanks', { stream: false, model });
      expectNoTurnAltered(`${model} resumed`, resumed?.text);
      if (model === 'deepseek' || model === 'openrouter') {
        // These routes read every earlier turn's reasoning: all of it came back from the session.
        expect(continuitySentence(resumed?.text ?? '')).toMatch(/^Reasoning continuity: intact/);
      }
    }
    expect(upstreamStatuses(fleet).filter((status) => status !== 200)).toEqual([]);
    const sessions = await runHermes(['sessions', 'list', '--json'], fleet.sandbox, fleet.env);
    const listed = JSON.parse(sessions.stdout) as { id: string; title: string }[];
    expect(listed.map((session) => session.title)).toEqual(['read the file notes.txt']);
    await expectBadHandlesDropped(fleet, listed[0]!.id);
  });
});

/** One more turn with a tampered handle and another gateway's: answered, each drop explained. */
async function expectBadHandlesDropped(fleet: FrontDoorFleet, sessionId: string): Promise<void> {
  const other = await startFrontDoorFleet(e2e);
  const foreign = geminiDoorConversation(other.gateway.url, 'deepseek', { apiKey: GATEWAY_TOKEN });
  const [foreignCall] = await foreign.turn('read the file notes.txt', { stream: false });
  // Its own words: a conversation whose visible turns repeat another's is matched to neither.
  const conversation = geminiDoorConversation(fleet.gateway.url, 'deepseek', { apiKey: GATEWAY_TOKEN });
  await conversation.turn('call the tool read_file with {"path":"other.txt"}', { stream: false });
  spoilHandles(conversation.contents, foreignCall!.handle!);
  const [next] = await conversation.turn('thanks', { stream: true });
  expect(next?.text).toContain('Reasoning continuity: intact (2/2).');
  expect(upstreamStatuses(fleet).filter((status) => status !== 200)).toEqual([]);
  const listed = JSON.parse((await runHermes(['sessions', 'list', '--json'], fleet.sandbox, fleet.env)).stdout) as {
    id: string;
  }[];
  const newest = listed.find((session) => session.id !== sessionId)!;
  const preview = await runHermes(['replay', 'preview', '--session', newest.id, '--explain'], fleet.sandbox, fleet.env);
  expect(preview.stdout).toContain('does not authenticate');
  expect(preview.stdout).toContain('a key this store does not hold');
}

/** The Gemini CLI binary to run, or null (the test is skipped). */
function geminiCliBinary(): string | null {
  const named = process.env['HERMES_GEMINI_CLI'];
  if (named) return existsSync(named) ? named : null;
  try {
    return execFileSync('sh', ['-c', 'command -v gemini'], { encoding: 'utf8' }).trim() || null;
  } catch {
    return null;
  }
}

const GEMINI_CLI = geminiCliBinary();

/** Runs Gemini CLI headless in `workspace`, its settings in `home`, pointed at the gateway. */
function runGeminiCli(
  args: string[],
  options: { gateway: string; home: string; workspace: string },
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((done) => {
    execFile(
      GEMINI_CLI as string,
      args,
      {
        cwd: options.workspace,
        timeout: scaledTimeout(120_000),
        env: {
          PATH: process.env['PATH'] ?? '',
          HOME: options.home,
          GEMINI_CLI_HOME: options.home,
          GEMINI_CLI_TRUST_WORKSPACE: 'true',
          GOOGLE_GEMINI_BASE_URL: options.gateway,
          GEMINI_API_KEY: GATEWAY_TOKEN,
          NO_COLOR: '1',
        },
      },
      (error, stdout, stderr) =>
        done({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr }),
    );
  });
}

describe.skipIf(GEMINI_CLI === null)('hermes gateway, the Gemini door, with the real Gemini CLI (headless)', () => {
  it('a tool turn, then --resume on each route in turn: one conversation found by history, no turn altered, 0 4xx', async () => {
    const fleet = await startFrontDoorFleet(e2e);
    const home = mkdtempSync(join(tmpdir(), 'hermes-e2e-gemini-cli-'));
    e2e.defer(() => rmSync(home, { recursive: true, force: true }));
    mkdirSync(join(home, '.gemini'));
    // Offline: no telemetry, no usage statistics, no update check; the API-key auth type, whose
    // base URL GOOGLE_GEMINI_BASE_URL sets (docs/gateway.md "Gemini CLI").
    writeFileSync(
      join(home, '.gemini', 'settings.json'),
      JSON.stringify({
        general: { enableAutoUpdate: false, enableAutoUpdateNotification: false },
        privacy: { usageStatisticsEnabled: false },
        telemetry: { enabled: false },
        security: { auth: { selectedType: 'gemini-api-key' } },
      }),
    );
    const where = { gateway: fleet.gateway.url, home, workspace: fleet.sandbox.workspace };
    const call = 'call the tool read_file with {"file_path":"notes.txt"}';
    const first = await runGeminiCli(['-p', call, '-m', 'deepseek'], where);
    expect(first.stdout).toContain('The tool returned: alpha beta');
    expect(continuitySentence(first.stdout)).toBe('Reasoning continuity: intact (1/1).');
    const resumed = await runGeminiCli(['--resume', 'latest', '-p', 'thanks', '-m', 'deepseek'], where);
    expect(continuitySentence(resumed.stdout)).toBe('Reasoning continuity: intact (2/2).');
    for (const model of ROUTES.slice(1)) {
      const switched = await runGeminiCli(['--resume', 'latest', '-p', call, '-m', model], where);
      expect(switched.code).toBe(0);
      expectNoTurnAltered(`gemini cli on ${model}`, switched.stdout);
    }
    expect(upstreamStatuses(fleet).filter((status) => status !== 200)).toEqual([]);
    const sessions = JSON.parse((await runHermes(['sessions', 'list', '--json'], fleet.sandbox, fleet.env)).stdout) as {
      id: string;
      title: string;
    }[];
    expect(sessions.map((session) => session.title)).toEqual([call]);
  });
});
