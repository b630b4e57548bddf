/**
 * Run agent turns through the runtime: a store in a temporary home, one turn with the built-in
 * tools and streamed events, a second turn resuming the session, then a branch
 * (docs/library.md). Point it at a provider, or at a local emulator:
 *
 *   hermes emulate chat --persona deepseek          (prints: listening on http://127.0.0.1:PORT/v1)
 *   node dist/run-turn.js http://127.0.0.1:PORT/v1
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BUILTIN_TOOLS, branchSession, openSessionStore, runTurn } from 'hermes-ts';
import type { RequestRoute } from 'hermes-ts/replay';

const baseUrl = process.argv[2];
if (!baseUrl) {
  console.error('usage: node run-turn.js BASE_URL');
  process.exit(2);
}

const home = mkdtempSync(join(tmpdir(), 'hermes-example-'));
const workspace = join(home, 'workspace');
mkdirSync(workspace);
writeFileSync(join(workspace, 'notes.txt'), 'buy milk\n');

const store = openSessionStore({ home });
const route: RequestRoute = { provider: 'deepseek', model: 'deepseek-v4-flash', baseUrl };
try {
  let streamed = '';
  const first = await runTurn({
    store,
    route,
    apiKey: 'sk-example',
    prompt: 'read the file notes.txt',
    tools: BUILTIN_TOOLS,
    workspace,
    onEvent: (event) => {
      if (event.type === 'text-delta') streamed += event.text;
      if (event.type === 'tool-result') console.log(`tool ${event.name}: ${event.content.trim()}`);
    },
  });
  console.log(`session ${first.sessionId}: ${first.toolCalls.length} tool call(s), answer: ${first.answer}`);
  if (streamed === '' || first.toolCalls.length === 0) throw new Error('expected streamed text and a tool call');

  const second = await runTurn({ store, route, apiKey: 'sk-example', sessionId: first.sessionId, prompt: 'thanks' });
  console.log(`resumed: ${second.answer}`);

  const branch = await branchSession(store, first.sessionId, { title: 'what if' });
  const copied = await store.listMessages(branch.id);
  console.log(`branch ${branch.id} holds ${copied.length} messages`);
} finally {
  await store.close();
}
