import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { AnthropicEmulator } from '../../src/emulators/anthropic-messages/anthropic-emulator.js';
import { sentThinkingBlocks, signatureOf, storedThinkingBlocks, type MessageWithBlocks } from '../support/carriers.js';
import {
  chatJson,
  parseJson,
  resumeArgs,
  routeArgs,
  runHermes,
  showSession,
  useE2e,
  withStateDb,
  type Sandbox,
} from '../support/e2e.js';
import { readFixtureText } from '../support/fixtures.js';
import { requestRecords as records } from '../support/request-records.js';
import { stdioFixtureEntry } from '../support/mcp-fixture.js';

/**
 * SPEC §26.4 through the real `hermes` binary against the Anthropic emulator in binding `error`
 * mode (a block whose prefix changed is a 400 unless the request asks for `drop_block`, which
 * Hermes declares there as a safety net): every known prefix changer — a tool loop, `--resume`,
 * a changed tool list, `/model` between two Claude models, compaction, a branch, an import — runs
 * with no binding 400, no block the provider had to drop (a stale block is never sent, not
 * merely dropped or retried away), every stale block explained, and every valid block kept.
 */

const e2e = useE2e();
const FABLE = 'claude-fable-5-1';
const STALE_PREFIX = 'bound to another conversation (prefix changed)';
const STALE_MODEL = 'bound to another conversation (model changed)';

interface Shown {
  model_config: Record<string, unknown>;
  messages: (MessageWithBlocks & { content?: unknown })[];
}

function route(emulator: AnthropicEmulator, model = FABLE): string[] {
  return routeArgs('anthropic', model, emulator.baseUrl, 'x');
}

/** `m<index> <action>: <reason>` of the thinking decisions of a session's newest request. */
async function lastThinkingDecisions(sandbox: Sandbox, sessionId: string): Promise<string[]> {
  const recorded = await records(sandbox, sessionId);
  const last = recorded.at(-1);
  return (last?.decisions ?? [])
    .filter((decision) => decision['field'] === 'thinking')
    .map(
      (decision) => `m${String(decision['messageIndex'])} ${String(decision['action'])}: ${String(decision['reason'])}`,
    );
}

/** The emulator saw no stale block at all: no binding 400, nothing it had to drop, every request 200. */
function expectNoStaleBlockSent(emulator: AnthropicEmulator): void {
  expect(emulator.binding).toEqual({ rejections: 0, drops: [] });
  expect(emulator.requests.map((request) => request.status).filter((status) => status !== 200)).toEqual([]);
}

const signatures = (blocks: Record<string, unknown>[][]) => blocks.map((turn) => turn.map(signatureOf));

describe('thinking-block binding against the emulator in binding error mode (SPEC §26.4)', () => {
  it('a tool loop, --resume and a branch keep every block: all valid, all sent, continuity intact', async () => {
    const emulator = await e2e.anthropic({ binding: 'error' });
    const sandbox = e2e.sandbox();
    const first = await chatJson(sandbox, ['-q', 'read the file notes.txt', ...route(emulator)]);
    expect(first.answer).toContain('alpha beta');
    const stored = storedThinkingBlocks(await showSession<Shown>(sandbox, first.session_id));
    expect(stored.map((turn) => turn.length)).toEqual([1, 1]);
    // The loop's second request carried the tool-call turn's block, bound to the model and prefix.
    expect(signatures(sentThinkingBlocks(emulator.requests[1]?.body))).toEqual([signatures(stored)[0]]);
    for (const block of stored.flat()) expect(block['_binding']).toMatchObject({ model: FABLE });
    expect(emulator.requests[1]?.raw).not.toContain('"_binding"');

    const resumed = await chatJson(sandbox, [...resumeArgs(first.session_id, 'thanks'), ...route(emulator)]);
    expect(resumed.answer).toContain('Reasoning continuity: intact (2/2)');
    expect(signatures(sentThinkingBlocks(emulator.requests[2]?.body))).toEqual(signatures(stored));
    expect(await lastThinkingDecisions(sandbox, first.session_id)).toEqual([
      'm2 kept: signed: same issuer',
      'm4 kept: signed: same issuer',
    ]);

    const branched = parseJson<{ session_id: string }>(
      await runHermes(['sessions', 'branch', first.session_id, '--json'], sandbox),
    );
    const onBranch = await chatJson(sandbox, [...resumeArgs(branched.session_id, 'and now?'), ...route(emulator)]);
    expect(onBranch.answer).toContain('Reasoning continuity: intact (3/3)');
    expect(sentThinkingBlocks(emulator.requests.at(-1)?.body).flat()).toHaveLength(3);
    expectNoStaleBlockSent(emulator);
  });

  it('a changed tool list (an MCP server added) leaves every earlier block out, explained; the next turn keeps the new one', async () => {
    const emulator = await e2e.anthropic({ binding: 'error' });
    const sandbox = e2e.sandbox();
    const first = await chatJson(sandbox, ['-q', 'read the file notes.txt', ...route(emulator)]);
    writeFileSync(join(sandbox.home, 'config.yaml'), `mcp_servers:\n${stdioFixtureEntry('fx', ['trust: true'])}\n`);
    const changed = await chatJson(sandbox, [...resumeArgs(first.session_id, 'thanks'), ...route(emulator)]);
    expect(changed.answer).toContain('You said: thanks');
    expect(sentThinkingBlocks(emulator.requests[2]?.body)).toEqual([[], []]);
    expect(await lastThinkingDecisions(sandbox, first.session_id)).toEqual([
      `m2 dropped: ${STALE_PREFIX}`,
      `m4 dropped: ${STALE_PREFIX}`,
    ]);
    // The answer given under the new tool list is bound to it: the next turn sends it.
    const again = await chatJson(sandbox, [...resumeArgs(first.session_id, 'once more'), ...route(emulator)]);
    expect(again.answer).toContain('You said: once more');
    expect(await lastThinkingDecisions(sandbox, first.session_id)).toEqual([
      `m2 dropped: ${STALE_PREFIX}`,
      `m4 dropped: ${STALE_PREFIX}`,
      'm6 kept: signed: same issuer',
    ]);
    expectNoStaleBlockSent(emulator);
  });

  it('/model between two Claude models leaves the other model’s blocks out and keeps each model’s own', async () => {
    const emulator = await e2e.anthropic({ binding: 'error' });
    const sandbox = e2e.sandbox();
    const first = await chatJson(sandbox, ['-q', 'hello there', ...route(emulator)]);
    await chatJson(sandbox, [...resumeArgs(first.session_id, 'switch'), ...route(emulator, 'claude-opus-5-5')]);
    expect(await lastThinkingDecisions(sandbox, first.session_id)).toEqual([`m2 dropped: ${STALE_MODEL}`]);
    const back = await chatJson(sandbox, [...resumeArgs(first.session_id, 'and back'), ...route(emulator)]);
    expect(back.answer).toContain('You said: and back');
    // Fable's own block is still valid (nothing before it changed); Opus's is another model's.
    expect(await lastThinkingDecisions(sandbox, first.session_id)).toEqual([
      'm2 kept: signed: same issuer',
      `m4 dropped: ${STALE_MODEL}`,
    ]);
    expectNoStaleBlockSent(emulator);
  });

  it('compaction: the API writes the summary (on-demand compaction), so the kept turn’s blocks stay valid and are sent', async () => {
    const emulator = await e2e.anthropic({ binding: 'error' });
    const sandbox = e2e.sandbox();
    const first = await chatJson(sandbox, ['-q', 'hello there', ...route(emulator)]);
    await chatJson(sandbox, [...resumeArgs(first.session_id, 'second question'), ...route(emulator)]);
    await chatJson(sandbox, [...resumeArgs(first.session_id, 'third question'), ...route(emulator)]);
    const compressed = await runHermes(
      ['sessions', 'compress', first.session_id, '--keep-turns', '1', ...route(emulator)],
      sandbox,
    );
    expect(compressed.code).toBe(0);
    const after = await chatJson(sandbox, [...resumeArgs(first.session_id, 'after compaction'), ...route(emulator)]);
    expect(after.answer).toContain('You said: after compaction');
    // Hermes's own summary is covered in e2e-thinking-binding-compaction.test.ts (on-demand compaction refused).
    const decisions = await lastThinkingDecisions(sandbox, after.session_id);
    expect(decisions.length).toBeGreaterThan(0);
    for (const decision of decisions) expect(decision).toMatch(/kept: signed: same issuer$/);
    const again = await chatJson(sandbox, [...resumeArgs(after.session_id, 'and again'), ...route(emulator)]);
    expect(again.answer).toContain('You said: and again');
    expect((await lastThinkingDecisions(sandbox, after.session_id)).at(-1)).toMatch(/kept: signed: same issuer$/);
    expectNoStaleBlockSent(emulator);
  });

  it('an imported Claude Code session: its blocks were bound to Claude Code’s prefix, so they are explained, never sent', async () => {
    const emulator = await e2e.anthropic({ binding: 'error' });
    const sandbox = e2e.sandbox();
    const fixture = readFixtureText('imports/claude-code-session.jsonl');
    const file = join(sandbox.workspace, 'fable-session.jsonl');
    writeFileSync(file, fixture.replaceAll('claude-opus-4-5-20251101', FABLE));
    const imported = parseJson<{ session_id: string }>(
      await runHermes(['sessions', 'import', '--from', 'claude', file, '--json'], sandbox),
    );
    const env = {
      HERMES_CONNECT_TO: `https://api.anthropic.com=${new URL(emulator.baseUrl).origin}`,
      ANTHROPIC_API_KEY: 'k',
    };
    const resumed = await chatJson(sandbox, ['--resume', imported.session_id, '-q', 'and how do I fix it?'], env);
    expect(resumed.answer).toContain('You said: and how do I fix it?');
    expect(sentThinkingBlocks(emulator.requests[0]?.body).flat()).toEqual([]);
    const decisions = await lastThinkingDecisions(sandbox, imported.session_id);
    expect(decisions.length).toBeGreaterThan(0);
    for (const decision of decisions)
      expect(decision).toMatch(/dropped: bound to another conversation \(prefix changed\)$/);
    expectNoStaleBlockSent(emulator);
  });
});

/** Removes the binding contexts from a session's stored blocks: history stored before Hermes captured them. */
function forgetBindings(sandbox: Sandbox): void {
  withStateDb(sandbox.home, (database) => {
    const rows = database
      .prepare(
        'SELECT rowid AS id, anthropic_content_blocks AS blocks FROM messages WHERE anthropic_content_blocks IS NOT NULL',
      )
      .all() as { id: number; blocks: string }[];
    const update = database.prepare('UPDATE messages SET anthropic_content_blocks = ? WHERE rowid = ?');
    for (const row of rows) {
      const blocks = (JSON.parse(row.blocks) as Record<string, unknown>[]).map(({ _binding, ...rest }) => rest);
      update.run(JSON.stringify(blocks), row.id);
    }
  });
}

describe('a drop by the provider under drop_block shows on every surface (SPEC §26.4)', () => {
  it('chat -q --json, sessions show, replay preview --explain, hermes logs, doctor and the inspector all report it', async () => {
    const emulator = await e2e.anthropic({ binding: 'drop_block' });
    const sandbox = e2e.sandbox();
    const first = await chatJson(sandbox, ['-q', 'read the file notes.txt', ...route(emulator)]);
    // History kept from before binding contexts were captured: Hermes cannot judge these blocks.
    forgetBindings(sandbox);
    writeFileSync(join(sandbox.home, 'config.yaml'), `mcp_servers:\n${stdioFixtureEntry('fx', ['trust: true'])}\n`);
    const run = await runHermes(
      ['chat', ...resumeArgs(first.session_id, 'thanks'), ...route(emulator), '--json'],
      sandbox,
    );
    expect(run.code).toBe(0);
    const turn = parseJson<{ answer: string; thinking_dropped_by_provider: number }>(run);
    expect(turn.answer).toContain('You said: thanks');
    expect(turn.thinking_dropped_by_provider).toBe(2);
    expect(run.stderr).toContain('the provider dropped 2 thinking blocks from the request');
    expect(emulator.binding.drops.map((drop) => drop.reason)).toEqual([
      'prefix_binding_mismatch',
      'prefix_binding_mismatch',
    ]);
    // The request declared drop_block with the beta (SPEC §26.4): no 400.
    expect(emulator.requests[2]?.headers['anthropic-beta']).toContain('thinking-binding-controls-2026-08-01');
    expect(emulator.binding.rejections).toBe(0);

    const shown = await showSession<{ messages: Record<string, unknown>[] }>(sandbox, first.session_id);
    expect(shown.messages.at(-1)?.['_input_transformations']).toEqual([
      { type: 'thinking_dropped', path: 'messages.1.content.0', reason: 'prefix_binding_mismatch', message: 2 },
      { type: 'thinking_dropped', path: 'messages.3.content.0', reason: 'prefix_binding_mismatch', message: 4 },
    ]);
    const text = await runHermes(['sessions', 'show', first.session_id], sandbox);
    expect(text.stdout).toContain('2 thinking block(s) dropped by the provider');
    expect(text.stdout).toContain(
      'the provider dropped 2 thinking blocks from the request (prefix_binding_mismatch: message 2, message 4)',
    );

    const explain = await runHermes(['replay', 'preview', '--session', first.session_id, '--explain'], sandbox);
    expect(explain.stdout).toContain('reasoning the provider dropped (input_transformations): 2 thinking block(s)');
    expect(explain.stdout).toContain('message 2 thinking dropped by the provider: prefix_binding_mismatch');

    const logs = await runHermes(['logs', '--session', first.session_id, '--grep', 'provider dropped'], sandbox);
    expect(logs.stdout).toContain('the provider dropped 2 thinking blocks from the request');

    const doctor = await runHermes(['doctor'], sandbox);
    expect(doctor.stdout).toMatch(
      /warn\s+thinking\s+providers dropped 2 thinking block\(s\) in 1 of the last 20 sessions/,
    );

    const gateway = await e2e.gateway(route(emulator), sandbox);
    const requests = (await (await fetch(`${gateway.url}/v1/sessions/${first.session_id}/requests`)).json()) as {
      data: { decisions: { messageIndex: number; action: string; reason: string }[] }[];
    };
    const providerRows = requests.data
      .flatMap((record) => record.decisions)
      .filter((decision) => decision.reason.startsWith('dropped by the provider'));
    expect(providerRows.map((decision) => decision.messageIndex)).toEqual([2, 4]);
    const session = (await (await fetch(`${gateway.url}/v1/sessions/${first.session_id}`)).json()) as {
      messages: Record<string, unknown>[];
    };
    expect(session.messages.at(-1)?.['_input_transformations']).toHaveLength(2);
  });
});

describe('a route that refuses block_binding (SPEC §26.4)', () => {
  it('learns it like an unknown field: one 400 and one retry, then never declared again on that route', async () => {
    // Without binding the emulator stands for a provider that does not know the binding controls.
    const emulator = await e2e.anthropic();
    const sandbox = e2e.sandbox();
    const first = await chatJson(sandbox, ['-q', 'hello there', ...route(emulator)]);
    expect(first.answer).toContain('You said: hello there');
    expect(emulator.requests.map((request) => request.status)).toEqual([400, 200]);
    expect(emulator.requests[0]?.raw).toContain('"block_binding"');
    expect(emulator.requests[1]?.raw).not.toContain('"block_binding"');
    expect(emulator.requests[1]?.headers['anthropic-beta'] ?? '').not.toContain('thinking-binding-controls');
    // A new session on the same route already knows (store-wide verdict).
    await chatJson(sandbox, ['-q', 'another session', ...route(emulator)]);
    expect(emulator.requests.map((request) => request.status)).toEqual([400, 200, 200]);
    const verdicts = await runHermes(['routes', 'verdicts'], sandbox);
    expect(verdicts.stdout).toContain('request:block_binding');
  });
});
