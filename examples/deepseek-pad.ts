/**
 * Build the request DeepSeek would receive for a history whose tool-call turn has no reasoning:
 * DeepSeek requires `reasoning_content` on such a turn, so Hermes pads it with " " (docs/replay.md).
 *
 *   npx tsc && node dist/deepseek-pad.js      (in a project that installed hermes-ts)
 */
import { buildRequest, explainTable, type Message } from 'hermes-ts/replay';

const messages: Message[] = [
  { role: 'user', content: 'list the files' },
  {
    role: 'assistant',
    content: null,
    tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'list_directory', arguments: '{"path":"."}' } }],
  },
  { role: 'tool', tool_call_id: 'call_1', content: 'notes.txt' },
  { role: 'user', content: 'thanks' },
];

const request = buildRequest({ messages, route: { provider: 'deepseek', model: 'deepseek-v4-flash' } });
console.log(explainTable(messages, request.decisions));

const toolTurn = (request.body['messages'] as Array<Record<string, unknown>>)[1];
if (toolTurn?.['reasoning_content'] !== ' ') {
  console.error(`expected the tool turn padded with " ", got ${JSON.stringify(toolTurn)}`);
  process.exit(1);
}
console.log(`route ${request.routeKey}: tool turn padded with " "`);
