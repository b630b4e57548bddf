import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SUMMARY_MESSAGE_PREFIX } from '../../src/runtime/compaction-run.js';
import { parseJson, postChatCompletion, routeArgs, runHermes, showSession, useE2e } from '../support/e2e.js';
import { longSession, PLANTED_IDENTIFIERS, seedDeepSeekSession } from '../support/long-session.js';

/**
 * In-place compaction through every way in (SPEC §26.6, docs/sessions.md): `/compress` in the
 * chat, `hermes sessions compress`, and the gateway's automatic compaction all keep the session
 * id; `sessions show` says what was compacted and what the tail kept and hides the archive unless
 * `--archived`; `sessions search` finds archived and live messages; `sessions list` keeps one
 * row; `replay preview --explain` names the compaction; an export carries the archive, marked.
 */

const e2e = useE2e();

const deepseek = (baseUrl: string) => ['--base-url', baseUrl, '--api-key', 'k'];

/** A question of about `tokens` tokens. */
const question = (index: number, tokens: number) => `question ${index}: ${'tell me more about it '.repeat(tokens / 5)}`;

describe('hermes sessions compress, in place', () => {
  it('keeps the id; show, search, list, explain and export tell what was archived and what the tail kept', async () => {
    const emulator = await e2e.chat({ persona: 'deepseek' });
    const sandbox = e2e.sandbox({ config: 'compaction:\n  context_window: 32000\n' });
    const history = longSession({ turns: 12, resultTokens: 1_500 });
    const id = await seedDeepSeekSession(sandbox.home, emulator.baseUrl, history);

    const run = await runHermes(['sessions', 'compress', id, ...deepseek(emulator.baseUrl)], sandbox);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toBe(`${id}\n`);
    expect(run.stderr).toMatch(/compacting: summarising \d+ messages, keeping a lean tail of \d+ tokens/);
    expect(run.stderr).toMatch(new RegExp(`compacted ${id} in place \\(compaction 1\\)`));

    // sessions show: the compaction line, the archive as one line per run, the summary and the tail.
    const shown = await runHermes(['sessions', 'show', id], sandbox);
    expect(shown.stdout).toMatch(/compacted 1× in place; archived turns: hermes sessions show \S+ --archived/);
    expect(shown.stdout).toMatch(
      /#1 .*messages summarised and archived; .*kept [\d,]+ messages: a lean tail of [\d,]+ tokens \(budget 6,400\) with \d+ user messages/,
    );
    expect(shown.stdout).toMatch(/^ *2–\d+ \(\d+ archived by compaction; hermes sessions show \S+ --archived\)$/m);
    expect(shown.stdout).not.toContain('(archived #1)');
    const archived = await runHermes(['sessions', 'show', id, '--archived'], sandbox);
    expect(archived.stdout).toMatch(/^ {3}2 user {6}\(archived #1\) Step 1: go on\.$/m);

    // sessions search: archived and live hits, text and JSON, one session filter, no match.
    const search = await runHermes(['sessions', 'search', 'COMPACTION-PLAN.TS'], sandbox);
    expect(search.code, search.stderr).toBe(0);
    expect(search.stdout).toMatch(new RegExp(`^${id}  "seeded"  message \\d+, user, archived by compaction 1`, 'm'));
    expect(search.stdout).toContain(`look at ${PLANTED_IDENTIFIERS[0]}`);
    const json = parseJson<{ session_id: string; archived: boolean; role: string; field: string }[]>(
      await runHermes(['sessions', 'search', PLANTED_IDENTIFIERS[0], '--json', '--session', id], sandbox),
    );
    // The planted path: the user message and the tool call (archived), and the summary's index (live).
    expect(json.map((hit) => [hit.role, hit.archived])).toEqual([
      ['user', true],
      ['user', false],
    ]);
    expect((await runHermes(['sessions', 'search', 'no such text anywhere'], sandbox)).stdout).toBe(
      'no message holds "no such text anywhere"\n',
    );
    const bad = await runHermes(['sessions', 'search', 'x', '--limit', '0'], sandbox);
    expect([bad.code, bad.stderr]).toEqual([2, 'hermes: --limit must be a positive whole number\n']);

    // One row in sessions list, with its live message count.
    const listed = await runHermes(['sessions', 'list'], sandbox);
    expect(listed.stdout.trim().split('\n')).toHaveLength(1);
    expect(listed.stdout).toContain('(compacted 1×)');

    // replay preview --explain names what was compacted; the body holds the summary, not the archive.
    const explain = await runHermes(['replay', 'preview', '--session', id, '--explain'], sandbox);
    expect(explain.stdout).toContain('compacted 1× in place');
    const body = await runHermes(['replay', 'preview', '--session', id, '--json'], sandbox);
    expect(body.stdout).toContain(SUMMARY_MESSAGE_PREFIX.trim());
    expect(body.stdout).not.toContain('Step 1: go on.');

    // An export is the whole session: the archive comes along, marked, and a preview of it leaves it out.
    const exported = await runHermes(['sessions', 'export', id], sandbox);
    const records = exported.stdout.trim().split('\n').slice(1);
    const marks = records.filter((line) => line.includes('"_archived":1'));
    expect(marks.length).toBeGreaterThan(0);
    const file = join(sandbox.workspace, 'export.jsonl');
    writeFileSync(file, exported.stdout);
    const fromExport = await runHermes(
      ['replay', 'preview', '--history', file, '--provider', 'deepseek', '--json'],
      sandbox,
    );
    expect(fromExport.stdout).not.toContain('Step 1: go on.');
    expect(fromExport.stdout).toContain(SUMMARY_MESSAGE_PREFIX.trim());

    // Bad flags: one line, exit 2.
    const badTail = await runHermes(['sessions', 'compress', id, '--tail', 'short'], sandbox);
    expect([badTail.code, badTail.stderr]).toEqual([2, 'hermes: --tail must be lean or turns\n']);
  });

  it('--json says what was done; a second compaction numbers its archive 2', async () => {
    const emulator = await e2e.chat({ persona: 'deepseek' });
    const sandbox = e2e.sandbox({ config: 'compaction:\n  context_window: 32000\n  min_tail_user_messages: 1\n' });
    const id = await seedDeepSeekSession(
      sandbox.home,
      emulator.baseUrl,
      longSession({ turns: 12, resultTokens: 1_500 }),
    );
    const first = await runHermes(['sessions', 'compress', id, '--json', ...deepseek(emulator.baseUrl)], sandbox);
    expect(first.code, first.stderr).toBe(0);
    const done = parseJson<{ session_id: string; compacted: boolean; in_place: boolean; record: { number: number } }>(
      first,
    );
    expect(done).toMatchObject({ session_id: id, compacted: true, in_place: true, record: { number: 1 } });
    const second = await runHermes(
      ['sessions', 'compress', id, '--json', '--tail', 'turns', '--keep-turns', '1', ...deepseek(emulator.baseUrl)],
      sandbox,
    );
    expect(parseJson<{ record: { number: number; tail: string } }>(second).record).toMatchObject({
      number: 2,
      tail: 'turns',
    });
    const stored = await showSession<{ model_config: { compactions: unknown[] } }>(sandbox, id);
    expect(stored.model_config.compactions).toHaveLength(2);
  });
});

describe('/compress in the chat', () => {
  it('compacts in place: the chat goes on in the same session, the next request sends the summary, not the archive', async () => {
    const { emulator, sandbox, route } = await e2e.chatRoute({ persona: 'deepseek' }, 'deepseek', 'deepseek-v4-flash');
    writeFileSync(
      join(sandbox.home, 'config.yaml'),
      'compaction:\n  context_window: 8000\n  min_tail_user_messages: 1\n',
    );
    const lines = [
      question(1, 400),
      question(2, 400),
      question(3, 400),
      question(4, 400),
      '/compress',
      'last one',
      '/exit',
    ];
    const run = await runHermes(['chat', ...route], sandbox, {}, lines.map((line) => `${line}\n`).join(''));
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/compacted \S+ in place \(compaction 1\)/);
    const ids = [...run.stdout.matchAll(/resume with: hermes chat --resume (\S+)/g)].map((match) => match[1]);
    expect(new Set(ids).size).toBe(1);
    const last = emulator.requests.at(-1);
    expect(last?.raw).toContain('[Summary of the earlier part of this session]');
    // The head (the first question) stays; the middle went into the summary.
    expect(last?.raw).toContain('question 1:');
    expect(last?.raw).not.toContain('question 2:');
    expect(last?.raw).toContain('last one');
  });
});

describe('gateway turns', () => {
  it('compact in place automatically: the session id stays, the archive is kept', async () => {
    const emulator = await e2e.chat({ persona: 'deepseek' });
    const sandbox = e2e.sandbox({ config: 'compaction:\n  context_window: 6000\n  min_tail_user_messages: 1\n' });
    const gateway = await e2e.gateway(routeArgs('deepseek', 'deepseek-v4-flash', emulator.baseUrl), sandbox);
    let sessionId: string | undefined;
    for (let index = 1; index <= 10; index += 1) {
      const headers: Record<string, string> = sessionId ? { 'X-Hermes-Session-Id': sessionId } : {};
      const response = await postChatCompletion(
        gateway.url,
        { model: 'hermes', messages: [{ role: 'user', content: question(index, 300) }] },
        headers,
      );
      expect(response.status).toBe(200);
      await response.json();
      const answered = response.headers.get('X-Hermes-Session-Id') ?? '';
      if (sessionId) expect(answered).toBe(sessionId);
      sessionId = answered;
    }
    const shown = await showSession<{ model_config: { compactions?: { number: number }[] } }>(sandbox, sessionId ?? '');
    expect(shown.model_config.compactions?.length).toBeGreaterThan(0);
    const search = parseJson<{ archived: boolean }[]>(
      await runHermes(['sessions', 'search', 'question 2:', '--json'], sandbox),
    );
    expect(search.length).toBeGreaterThan(0);
    expect(search.every((hit) => hit.archived)).toBe(true);
    const list = await runHermes(['sessions', 'list', '--json'], sandbox);
    expect(parseJson<unknown[]>(list)).toHaveLength(1);
  });
});
