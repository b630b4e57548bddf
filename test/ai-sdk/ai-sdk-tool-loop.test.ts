import { afterEach, describe, expect, it } from 'vitest';
import type { JsonObject } from '../../src/core/json.js';
import { AI_SDK_NODE, AI_SDK_ROUTES, AI_SDK_SKIP_REASON, loadAiSdk, type AiSdkRoute } from './ai-sdk-helpers.js';
import { asSent, type Block } from '../support/carriers.js';

/**
 * `hermes-ts/ai-sdk` in AI SDK multi-step tool loops (generateText and streamText with
 * `stopWhen: stepCountIs(3)` and a tool with `execute`) against each emulator: the second
 * request replays the first step's reasoning carriers exactly as the route table says, and the
 * emulator answers "Reasoning continuity: intact". Node 22+ (ai@7).
 */

const running: AiSdkRoute[] = [];
afterEach(async () => {
  for (const route of running.splice(0)) await route.close();
});

async function loop(route: AiSdkRoute, mode: 'generate' | 'stream') {
  const { generateText, streamText, stepCountIs, createHermes, tools } = await loadAiSdk();
  const model = createHermes(route.settings);
  const call = { model, prompt: 'read the file notes.txt', tools, stopWhen: stepCountIs(3) };
  if (mode === 'generate') return generateText(call);
  const streamed = streamText(call);
  await streamed.consumeStream();
  return { text: await streamed.text, steps: await streamed.steps, response: await streamed.response };
}

/** The assistant entries of a request body, per wire API. */
function replayedAssistant(route: AiSdkRoute, body: JsonObject): unknown {
  switch (route.name) {
    case 'anthropic':
      return (body['messages'] as JsonObject[]).find((message) => message['role'] === 'assistant');
    case 'gemini':
      return (body['contents'] as JsonObject[]).find((content) => content['role'] === 'model');
    case 'responses':
      return (body['input'] as JsonObject[]).filter((item) => item['type'] === 'reasoning');
    default:
      return (body['messages'] as JsonObject[]).find((message) => message['role'] === 'assistant');
  }
}

describe.skipIf(!AI_SDK_NODE)(
  `AI SDK tool loops through hermes-ts/ai-sdk (${AI_SDK_NODE ? 'ai@7' : AI_SDK_SKIP_REASON})`,
  () => {
    const cases = AI_SDK_ROUTES.flatMap((route) => (['generate', 'stream'] as const).map((mode) => ({ route, mode })));
    it.each(cases)(
      '$route.name, $mode: request 2 replays step 1 exactly, continuity intact',
      async ({ route: routeCase, mode }) => {
        const route = await routeCase.start();
        running.push(route);
        const result = await loop(route, mode);
        expect(result.steps).toHaveLength(2);
        expect(result.steps[0]?.toolCalls.map((call) => call.toolName)).toEqual(['read_file']);
        expect(result.text).toContain('alpha beta');
        expect(result.text).toContain('Reasoning continuity: intact (1/1).');
        expect(route.requests.map((request) => request.status)).toEqual([200, 200]);

        const step = result.steps[0]!;
        const reasoning = step.content.find((part) => part.type === 'reasoning');
        const hermes = (reasoning?.providerMetadata ?? step.toolCalls[0]?.providerMetadata)?.['hermes'] as JsonObject;
        expect(hermes['origin']).toMatchObject({ provider: route.settings.provider, model: route.settings.model });
        const record = hermes['message'] as JsonObject;
        const second = route.requests[1]?.body as JsonObject;
        const replayed = replayedAssistant(route, second);
        switch (route.name) {
          case 'deepseek':
            // DeepSeek's row: reasoning_content only, byte for byte (SPEC §5).
            expect(replayed).toMatchObject({ reasoning_content: record['reasoning_content'] });
            expect(Object.keys(replayed as JsonObject).sort()).toEqual([
              'content',
              'reasoning_content',
              'role',
              'tool_calls',
            ]);
            break;
          case 'openrouter':
            expect(replayed).toMatchObject({ reasoning_details: record['reasoning_details'] });
            break;
          case 'anthropic':
            // Every stored block, byte for byte, without Hermes's private `_` keys (never sent).
            expect((replayed as JsonObject)['content']).toEqual(
              asSent([record['anthropic_content_blocks'] as Block[]])[0],
            );
            break;
          case 'gemini': {
            // Every stored part with its thoughtSignature, in place; Gemini 3 also gets each call's id (SPEC §11).
            const callId = step.toolCalls[0]?.toolCallId;
            const parts = (record['gemini_content_parts'] as JsonObject[]).map((part): JsonObject =>
              part['functionCall']
                ? { ...part, functionCall: { ...(part['functionCall'] as JsonObject), id: callId } }
                : part,
            );
            expect((replayed as JsonObject)['parts']).toEqual(parts);
            expect(parts.some((part) => typeof part['thoughtSignature'] === 'string')).toBe(true);
            break;
          }
          case 'responses': {
            const items = record['codex_reasoning_items'] as JsonObject[];
            expect((replayed as JsonObject[]).map((item) => item['encrypted_content'])).toEqual(
              items.map((item) => item['encrypted_content']),
            );
            break;
          }
        }
      },
    );
  },
);
