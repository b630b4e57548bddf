import { afterEach, describe, expect, it } from 'vitest';
import type { JsonObject } from '../../src/core/json.js';
import { startChatEmulator } from '../../src/emulators/chat-completions/chat-emulator.js';
import { createMemorySessionStore } from '../../src/storage/memory-session-store.js';
import {
  AI_SDK_NODE,
  AI_SDK_ROUTES,
  AI_SDK_SKIP_REASON,
  loadAiSdk,
  prefixFetch,
  type AiSdkRoute,
} from './ai-sdk-helpers.js';

/**
 * An AI SDK app that keeps the conversation itself: `responseMessages` (every step) stored as JSON or UI
 * messages, sent back on the next turn, gets exact replay (continuity intact over two turns),
 * origin scoping when it switches provider (no foreign blob reaches the new route), learned
 * verdicts (in memory, or in a store the app passes) and effort levels. Node 22+ (ai@7).
 */

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

async function started(name: string): Promise<AiSdkRoute> {
  const route = await AI_SDK_ROUTES.find((candidate) => candidate.name === name)!.start();
  cleanups.push(() => route.close());
  return route;
}

const sdk = loadAiSdk;

/** The stored conversation as an app keeps it: JSON, round-tripped. */
function stored<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}

describe.skipIf(!AI_SDK_NODE)(`hermes-ts/ai-sdk conversations (${AI_SDK_NODE ? 'ai@7' : AI_SDK_SKIP_REASON})`, () => {
  it.each(['deepseek', 'openrouter', 'anthropic', 'gemini', 'responses'])(
    '%s: responseMessages stored as JSON and sent back: the next turn finds both turns intact',
    async (name) => {
      const { generateText, stepCountIs, createHermes, tools } = await sdk();
      const route = await started(name);
      const model = createHermes(route.settings);
      const first = await generateText({ model, prompt: 'read the file notes.txt', tools, stopWhen: stepCountIs(3) });
      const messages = stored([
        { role: 'user' as const, content: 'read the file notes.txt' },
        ...first.responseMessages,
      ]);
      const second = await generateText({ model, tools, messages: [...messages, { role: 'user', content: 'thanks' }] });
      expect(second.text).toContain('Reasoning continuity: intact (2/2).');
      expect(route.requests.every((request) => request.status === 200)).toBe(true);
    },
  );

  it('UI messages (toUIMessageStream → convertToModelMessages) keep the carriers too', async () => {
    const { streamText, generateText, stepCountIs, readUIMessageStream, convertToModelMessages, createHermes, tools } =
      await sdk();
    const route = await started('anthropic');
    const model = createHermes(route.settings);
    const user = {
      id: 'u1',
      role: 'user' as const,
      parts: [{ type: 'text' as const, text: 'read the file notes.txt' }],
    };
    const result = streamText({ model, prompt: 'read the file notes.txt', tools, stopWhen: stepCountIs(3) });
    let assistant: unknown;
    for await (const message of readUIMessageStream({ stream: result.toUIMessageStream() })) assistant = message;
    const next = { id: 'u2', role: 'user' as const, parts: [{ type: 'text' as const, text: 'thanks' }] };
    const ui = stored([user, assistant, next]) as Parameters<typeof convertToModelMessages>[0];
    const again = await generateText({ model, tools, messages: await convertToModelMessages(ui, { tools }) });
    expect(again.text).toContain('Reasoning continuity: intact (2/2).');
  });

  it.each([
    ['anthropic', 'deepseek', 'signature'],
    ['responses', 'openrouter', 'encrypted_content'],
    ['gemini', 'anthropic', 'thoughtSignature'],
  ])('a switch from %s to %s sends the readable reasoning and no foreign %s', async (from, to, blobKey) => {
    const { generateText, stepCountIs, createHermes, tools } = await sdk();
    const source = await started(from);
    const target = await started(to);
    const first = await generateText({
      model: createHermes(source.settings),
      prompt: 'read the file notes.txt',
      tools,
      stopWhen: stepCountIs(3),
    });
    const sent = JSON.stringify(first.responseMessages);
    expect(sent).toContain(blobKey);
    const messages = [{ role: 'user' as const, content: 'read the file notes.txt' }, ...stored(first.responseMessages)];
    await generateText({
      model: createHermes(target.settings),
      tools,
      messages: [...messages, { role: 'user', content: 'and?' }],
    });
    const raw = target.requests[0]?.raw ?? '';
    const blobs = [...sent.matchAll(/"(?:signature|encrypted_content|thoughtSignature)":"([^"]+)"/g)].map(
      (match) => match[1]!,
    );
    expect(blobs.length).toBeGreaterThan(0);
    for (const blob of blobs) expect(raw).not.toContain(blob);
    // The readable reasoning of the foreign turn still travels where the new route reads it.
    const reasoning = first.steps[0]?.reasoningText ?? '';
    if (to === 'deepseek') {
      const assistants = ((target.requests[0]?.body as JsonObject)['messages'] as JsonObject[]).filter(
        (message) => message['role'] === 'assistant',
      );
      expect(assistants[0]?.['reasoning_content']).toBe(reasoning);
    }
    expect(target.requests.map((request) => request.status)).toEqual([200]);
  });

  it('a rejected carrier is learned once: in memory for the model, store-wide in a store the app passes', async () => {
    const { generateText, stepCountIs, createHermes, tools } = await sdk();
    const emulator = await startChatEmulator({ persona: 'openrouter', rejectKeys: ['reasoning_details'] });
    cleanups.push(() => emulator.close());
    const store = createMemorySessionStore();
    const settings = {
      provider: 'openrouter',
      model: 'z-ai/glm-5',
      apiKey: 'k',
      baseUrl: 'https://openrouter.ai/api/v1',
      fetch: prefixFetch('https://openrouter.ai/api/v1', emulator.baseUrl),
      store,
    };
    const model = createHermes(settings);
    const loop = (chosen: typeof model) =>
      generateText({ model: chosen, prompt: 'read the file notes.txt', tools, stopWhen: stepCountIs(3) });
    const first = await loop(model);
    expect(first.text).toContain('alpha beta');
    expect(emulator.requests.map((request) => request.status)).toEqual([200, 400, 200]);
    expect(emulator.requests[2]?.raw).not.toContain('reasoning_details');
    const verdicts = await store.listVerdicts();
    expect(verdicts.map((verdict) => [verdict.routeKey, verdict.fields])).toEqual([
      ['openrouter|openrouter.ai|z-ai/glm-5', ['reasoning', 'reasoning_details']],
    ]);
    // The same model object, then a new one on the same store: no 400 again.
    await loop(model);
    await loop(createHermes(settings));
    expect(emulator.requests.slice(3).map((request) => request.status)).toEqual([200, 200, 200, 200]);
    expect(emulator.requests.slice(3).some((request) => request.raw.includes('reasoning_details'))).toBe(false);
  });

  it('the call’s reasoning level is the route’s effort; a refused level is learned and retried once', async () => {
    const { generateText, createHermes } = await sdk();
    const emulator = await startChatEmulator({ persona: 'deepseek', acceptEfforts: ['low', 'high'] });
    cleanups.push(() => emulator.close());
    const model = createHermes({
      provider: 'deepseek',
      model: 'deepseek-v4-pro',
      apiKey: 'k',
      baseUrl: 'https://api.deepseek.com',
      fetch: prefixFetch('https://api.deepseek.com', emulator.baseUrl),
    });
    await generateText({ model, prompt: 'hello', reasoning: 'low' });
    await generateText({ model, prompt: 'hello', reasoning: 'max' });
    await generateText({ model, prompt: 'hello', reasoning: 'xhigh' });
    const efforts = emulator.requests.map((request) => [
      request.status,
      (request.body as JsonObject)['reasoning_effort'],
    ]);
    expect(efforts).toEqual([
      [200, 'low'],
      [400, 'max'],
      [200, 'high'],
      [200, 'high'],
    ]);
  });

  it('a provider error reaches generateText as the typed error, without the key', async () => {
    const { generateText, createHermes } = await sdk();
    const emulator = await startChatEmulator({ persona: 'deepseek', faults: [{ kind: 'status', status: 401 }] });
    cleanups.push(() => emulator.close());
    const model = createHermes({
      provider: 'deepseek',
      model: 'deepseek-v4-pro',
      apiKey: 'sk-secret-123',
      baseUrl: emulator.baseUrl,
    });
    const failure = await generateText({ model, prompt: 'hello', maxRetries: 0 }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(Error);
    expect(String((failure as Error).message)).not.toContain('sk-secret-123');
    expect((failure as { status?: number }).status).toBe(401);
  });

  it('an aborted call rejects with the abort reason and sends nothing', async () => {
    const { generateText, createHermes } = await sdk();
    const emulator = await startChatEmulator({ persona: 'deepseek' });
    cleanups.push(() => emulator.close());
    const model = createHermes({
      provider: 'deepseek',
      model: 'deepseek-v4-pro',
      apiKey: 'k',
      baseUrl: emulator.baseUrl,
    });
    const controller = new AbortController();
    controller.abort(new Error('user stopped'));
    const failure = await generateText({ model, prompt: 'hello', abortSignal: controller.signal }).catch(
      (error: unknown) => error,
    );
    expect(String((failure as Error).message)).toContain('user stopped');
    expect(emulator.requests).toHaveLength(0);
  });
});
