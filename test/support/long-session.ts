import type { Message } from '../../src/core/message.js';
import { openSqliteSessionStore } from '../../src/storage/sqlite-session-store.js';
import { stateDbPath } from '../../src/storage/store-paths.js';

/**
 * Long agent sessions for the compaction tests (SPEC §26.6): tool-loop turns whose assistant
 * messages carry readable reasoning (which a summary request must never quote) and opaque
 * carriers (which cost nothing, SPEC §15), with identifiers planted where a real session has
 * them: in what the user wrote, in tool-call arguments and in tool results.
 */

/** Identifiers planted in the summarised part of a long session; a compaction must keep each one. */
export const PLANTED_IDENTIFIERS = [
  'src/runtime/compaction-plan.ts',
  'test/e2e/e2e-lean-tail.test.ts',
  '9f3c2a7e41b0d5c6e8a9b1c2d3e4f5a6b7c8d9e0',
  '#4711',
  'https://example.com/hermes/issues/4711',
  "TypeError: Cannot read properties of undefined (reading 'carriers')",
] as const;

/** Reasoning text of turn `turn`: distinct per turn, so a test can look for any of it on the wire. */
export function reasoningOfTurn(turn: number): string {
  return `PRIVATE-REASONING-${turn}: I weigh the options for step ${turn} before I call the tool. `;
}

/** Filler of about `tokens` tokens (4 characters a token, SPEC §15). */
export function filler(tokens: number, seed: number): string {
  const unit = `line ${seed}: the build log goes on with more ordinary output here. `;
  return unit.repeat(Math.ceil((tokens * 4) / unit.length)).slice(0, tokens * 4);
}

/** Options of {@link longSession}. */
export interface LongSessionOptions {
  /** Tool-loop turns after the first message. */
  turns: number;
  /** Tokens of each tool result (the bulk of a turn). */
  resultTokens: number;
  /** Plant {@link PLANTED_IDENTIFIERS} in the turn with this number (default 2). */
  plantInTurn?: number;
  /** Give each tool call an opaque encrypted reasoning_details entry too (default true). */
  opaque?: boolean;
}

/**
 * A system prompt and a first user message, then `turns` tool-loop turns: a user message, an
 * assistant tool call carrying reasoning_content and an opaque encrypted reasoning_details entry,
 * (unless `opaque: false`), the tool result, and a final answer with reasoning.
 */
export function longSession(options: LongSessionOptions): Message[] {
  const plantIn = options.plantInTurn ?? 2;
  const [path, testPath, commit, issue, url, error] = PLANTED_IDENTIFIERS;
  const messages: Message[] = [
    { role: 'system', content: 'You are a careful coding agent.' },
    { role: 'user', content: 'We are fixing the compaction of long sessions. Start with the plan.' },
  ];
  for (let turn = 1; turn <= options.turns; turn += 1) {
    const planted = turn === plantIn;
    const id = `call_${turn}`;
    messages.push({
      role: 'user',
      content: planted ? `Step ${turn}: look at ${path} and issue ${issue} (${url}).` : `Step ${turn}: go on.`,
    });
    messages.push({
      role: 'assistant',
      content: null,
      reasoning_content: reasoningOfTurn(turn),
      ...(options.opaque === false
        ? {}
        : { reasoning_details: [{ type: 'reasoning.encrypted', data: `gAAAA${'e'.repeat(4000)}`, index: 0 }] }),
      tool_calls: [
        {
          id,
          type: 'function',
          function: {
            name: 'read_file',
            arguments: JSON.stringify({ path: planted ? testPath : `notes-${turn % 10}.txt` }),
          },
        },
      ],
      finish_reason: 'tool_calls',
    });
    const result = planted
      ? `commit ${commit}\n${error}\n    at planCompaction\n${filler(options.resultTokens, turn)}`
      : filler(options.resultTokens, turn);
    messages.push({ role: 'tool', tool_call_id: id, tool_name: 'read_file', content: result });
    messages.push({
      role: 'assistant',
      content: `Step ${turn} is done.`,
      reasoning_content: `${reasoningOfTurn(turn)}Now I answer.`,
      finish_reason: 'stop',
    });
  }
  return messages;
}

/**
 * Stores `messages` as a new DeepSeek session on the emulator at `baseUrl`, through the store API
 * of `$HERMES_HOME/state.db` (no `hermes` process may hold it meanwhile); returns its id.
 */
export async function seedDeepSeekSession(home: string, baseUrl: string, messages: Message[]): Promise<string> {
  const store = openSqliteSessionStore(stateDbPath(home));
  try {
    const session = await store.createSession({
      title: 'seeded',
      provider: 'deepseek',
      model: 'deepseek-v4-flash',
      baseUrl,
      api: 'chat_completions',
    });
    await store.appendMessages(session.id, messages);
    return session.id;
  } finally {
    await store.close();
  }
}
