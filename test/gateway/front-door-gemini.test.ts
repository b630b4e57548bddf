import { describe, expect, it } from 'vitest';
import type { CarrierDecision } from '../../src/runtime/runtime-client-turn.js';
import { createMemorySessionStore } from '../../src/storage/memory-session-store.js';
import type { RequestRecord, SessionStore } from '../../src/storage/session-store.js';
import { expectToolLoopIntact, statuses, useFrontDoors, type UpstreamName } from './front-door-helpers.js';
import {
  asResumedByGeminiCli,
  geminiClient,
  geminiConversationOn,
  geminiDoorConversation,
  spoilHandles,
} from './front-door-gemini-helpers.js';

/**
 * The Gemini front door (SPEC §26.9, docs/gateway.md "Gemini CLI and @google/genai"): the
 * official `@google/genai` SDK holds `contents` the way Gemini CLI does (thought parts dropped),
 * runs the tool, and gets each turn's carriers back through the handle in `thoughtSignature`;
 * after Gemini CLI's `--resume` (no handles left) the conversation's session, found by its
 * history, restores them (SPEC §26.1).
 */

const doors = useFrontDoors();
const UPSTREAMS: UpstreamName[] = ['deepseek', 'openrouter', 'anthropic', 'gemini'];
const CASES = UPSTREAMS.flatMap((upstream) => [false, true].map((stream) => [upstream, stream] as const));

/** A request record's decisions (stored as JSON). */
function decisionsOf(record: RequestRecord): CarrierDecision[] {
  return record.decisions as unknown as CarrierDecision[];
}

/** The session the gateway mirrored the last answer into (`X-Hermes-Session-Id`). */
async function answeredSession(url: string, body: unknown, model: string): Promise<string | null> {
  const response = await fetch(`${url}/v1beta/models/${model}:generateContent`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  expect(response.status).toBe(200);
  return response.headers.get('x-hermes-session-id');
}

describe('the Gemini door onto every upstream', () => {
  it.each(CASES)(
    'onto %s (stream %s): a client-held tool loop and a follow-up, intact, 0 4xx',
    async (upstream, stream) => {
      const { gateway, upstreams } = await doors.gateway([upstream]);
      await expectToolLoopIntact(geminiDoorConversation(gateway.url, upstream), stream, `gemini ${upstream}`);
      expect(statuses(upstreams[upstream]!)).toEqual([200, 200, 200]);
      for (const request of upstreams[upstream]!.requests) expect(request.raw).not.toContain('hermes.1.');
    },
  );

  it.each(UPSTREAMS)(
    'onto %s: resumed the way Gemini CLI resumes (no handle left, placeholder call signatures), the session restores every turn',
    async (upstream) => {
      const { gateway, upstreams, store } = await doors.gateway([upstream]);
      const conversation = geminiDoorConversation(gateway.url, upstream);
      await conversation.turn('read the file notes.txt', { stream: true });
      asResumedByGeminiCli(conversation.contents);
      const [resumed] = await conversation.turn('thanks', { stream: true });
      expect(resumed?.text).toContain('Reasoning continuity: intact (2/2).');
      expect(statuses(upstreams[upstream]!)).toEqual([200, 200, 200]);
      const [session] = await store.listSessions();
      const requests = await store.listRequests(session!.id);
      expect(requests).toHaveLength(3);
      const restored = decisionsOf(requests.at(-1)!).filter((decision) => decision.action === 'restored');
      expect(restored.map((decision) => decision.reason)).toEqual([
        expect.stringContaining('restored from session'),
        expect.stringContaining('restored from session'),
      ]);
      expect(session?.title).toBe('read the file notes.txt');
    },
  );

  it('a model switch on every resume: no turn the new route reads is altered, 0 4xx', async () => {
    const { gateway, upstreams } = await doors.gateway(['deepseek', 'gemini', 'anthropic', 'openrouter']);
    const conversation = geminiDoorConversation(gateway.url, 'deepseek');
    await conversation.turn('read the file notes.txt', { stream: true });
    for (const model of ['gemini', 'anthropic', 'openrouter', 'deepseek']) {
      asResumedByGeminiCli(conversation.contents);
      const answers = await conversation.turn('read the file notes.txt', { stream: true, model });
      expect({ model, text: answers.at(-1)?.text }).toEqual({
        model,
        text: expect.stringContaining('The tool returned'),
      });
      // Every turn the route reads back is intact: none altered. Routes that read only their own
      // reasoning (Gemini, Anthropic) count the other models' turns as not sent (origin scoping).
      expect({ model, text: answers.at(-1)?.text }).not.toEqual({
        model,
        text: expect.stringMatching(/[1-9]\d* altered/),
      });
    }
    for (const upstream of Object.values(upstreams))
      expect(statuses(upstream).filter((status) => status !== 200)).toEqual([]);
  });
});

describe('which conversation a request continues', () => {
  it('two conversations whose visible history is identical so far: neither one restores the other', async () => {
    const { gateway, store } = await doors.gateway(['deepseek']);
    const question = { role: 'user', parts: [{ text: 'hi' }] };
    const first = await answeredSession(gateway.url, { contents: [question] }, 'deepseek');
    const second = await answeredSession(gateway.url, { contents: [question] }, 'deepseek');
    expect(first).not.toBe(second);
    const answer = (await store.listMessages(first!)).at(-1)!;
    // The emulator answers "hi" the same words in both: the history fits both sessions.
    const history = [
      question,
      { role: 'model', parts: [{ text: answer.content }] },
      { role: 'user', parts: [{ text: 'and?' }] },
    ];
    const third = await answeredSession(gateway.url, { contents: history }, 'deepseek');
    expect([first, second]).not.toContain(third);
    expect(await store.listRequests(third!)).toHaveLength(1);
  });

  it('an answer many conversations share (more than one lookup reads) leaves each conversation in its own session', async () => {
    const { gateway, store } = await doors.gateway(['deepseek']);
    const conversations = Array.from({ length: 6 }, () => geminiDoorConversation(gateway.url, 'deepseek'));
    // Each reads its own file, then asks the same question: the emulator's answer to it is the same text.
    for (const [index, conversation] of conversations.entries()) {
      await conversation.turn(`read the file notes-${index}.txt`, { stream: false });
      await conversation.turn('ok', { stream: false });
    }
    for (const conversation of conversations) {
      asResumedByGeminiCli(conversation.contents);
      const [answer] = await conversation.turn('thanks', { stream: true });
      expect(answer?.text).toContain('Reasoning continuity: intact (3/3).');
    }
    expect(await store.listSessions()).toHaveLength(6);
  });

  it('a conversation resumed on another gateway of the same store is found there: the index lives in the store', async () => {
    const first = await doors.gateway(['deepseek']);
    const second = await doors.gateway(['deepseek'], { store: first.store });
    const conversation = geminiDoorConversation(first.gateway.url, 'deepseek');
    await conversation.turn('read the file notes.txt', { stream: true });
    asResumedByGeminiCli(conversation.contents);
    const moved = geminiConversationOn(second.gateway.url, conversation.contents);
    const [resumed] = await moved.turn('thanks', { stream: true });
    expect(resumed?.text).toContain('Reasoning continuity: intact (2/2).');
    expect(await first.store.listSessions()).toHaveLength(1);
  });

  it('a store that cannot look conversations up leaves the turn stateless, answered', async () => {
    const memory = createMemorySessionStore();
    const store: SessionStore = {
      ...memory,
      sessionsWithTurn: async () => {
        throw new Error('database unreachable');
      },
    };
    const { gateway } = await doors.gateway(['deepseek'], { store });
    const conversation = geminiDoorConversation(gateway.url, 'deepseek');
    await conversation.turn('hi', { stream: false });
    const [session] = await memory.listSessions();
    // The second request has an answer to look up: the lookup fails, the turn is answered anyway.
    const [answer] = await conversation.turn('and then?', { stream: true });
    expect(answer?.text).toContain('You said: and then?');
    expect(answer?.text).toContain('Reasoning continuity: intact (1/1).');
    expect(await memory.listSessions()).toEqual([session]);
  });

  it('a structured side request (responseMimeType application/json) is answered without a session', async () => {
    const { gateway, store } = await doors.gateway(['deepseek']);
    const body = {
      contents: [{ role: 'user', parts: [{ text: 'is the next speaker the user?' }] }],
      generationConfig: { responseMimeType: 'application/json', responseJsonSchema: { type: 'object' } },
    };
    expect(await answeredSession(gateway.url, body, 'deepseek')).toBeNull();
    expect(await store.listSessions()).toEqual([]);
  });
});

describe('the Gemini door, its wire', () => {
  it('tampered and foreign handles are dropped with a decision, never a 5xx', async () => {
    const { gateway, store, upstreams } = await doors.gateway(['deepseek']);
    const other = await doors.gateway(['deepseek']);
    const foreign = geminiDoorConversation(other.gateway.url, 'deepseek');
    const [foreignCall] = await foreign.turn('read the file notes.txt', { stream: false });
    const conversation = geminiDoorConversation(gateway.url, 'deepseek');
    await conversation.turn('read the file notes.txt', { stream: false });
    spoilHandles(conversation.contents, foreignCall!.handle!);
    const [next] = await conversation.turn('thanks', { stream: true });
    expect(next?.text).toContain('You said: thanks');
    expect(statuses(upstreams['deepseek']!).filter((status) => status !== 200)).toEqual([]);
    const [session] = await store.listSessions();
    const decisions = decisionsOf((await store.listRequests(session!.id)).at(-1)!);
    const dropped = decisions.filter(
      (decision) => decision.field.startsWith('handle ') && decision.action === 'dropped',
    );
    expect(dropped.map((decision) => decision.reason)).toEqual([
      expect.stringContaining('does not authenticate'),
      expect.stringContaining('a key this store does not hold'),
    ]);
    // The session's copy still brings both turns back.
    expect(next?.text).toContain('Reasoning continuity: intact (2/2).');
  });

  it("accepts the gateway token as x-goog-api-key or ?key=, and answers 401 in Google's envelope otherwise", async () => {
    const { gateway } = await doors.gateway(['deepseek'], { token: 'gw-secret' });
    const ask = (path: string, headers: Record<string, string>) =>
      fetch(`${gateway.url}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'hi' }] }] }),
      });
    expect((await ask('/v1beta/models/deepseek:generateContent', { 'x-goog-api-key': 'gw-secret' })).status).toBe(200);
    expect((await ask('/v1beta/models/deepseek:generateContent?key=gw-secret', {})).status).toBe(200);
    const refused = await ask('/v1beta/models/deepseek:generateContent', { 'x-goog-api-key': 'wrong' });
    expect(refused.status).toBe(401);
    expect(await refused.json()).toEqual({
      error: { code: 401, message: expect.stringContaining('x-goog-api-key'), status: 'UNAUTHENTICATED' },
    });
    const models = await geminiClient(gateway.url, 'gw-secret').models.list();
    const names: string[] = [];
    for await (const model of models) names.push(model.name ?? '');
    expect(names).toContain('models/deepseek');
  });

  it('countTokens is the replay estimate (opaque bytes free); a hosted tool is a 400 naming it', async () => {
    const { gateway } = await doors.gateway(['deepseek']);
    const client = geminiClient(gateway.url);
    const contents = [
      { role: 'user', parts: [{ text: 'read the file notes.txt' }] },
      { role: 'model', parts: [{ text: 'reading it', thoughtSignature: 'x'.repeat(5000) }] },
      { role: 'user', parts: [{ text: 'go on' }] },
    ];
    const counted = await client.models.countTokens({ model: 'deepseek', contents });
    expect(counted.totalTokens).toBeGreaterThan(5);
    expect(counted.totalTokens).toBeLessThan(100);
    const hosted = await fetch(`${gateway.url}/v1beta/models/deepseek:generateContent`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ contents, tools: [{ googleSearch: {} }] }),
    });
    expect(hosted.status).toBe(400);
    expect(((await hosted.json()) as { error: { message: string } }).error.message).toContain('googleSearch');
  });

  it(':streamGenerateContent without alt=sse answers one JSON array of chunks', async () => {
    const { gateway } = await doors.gateway(['deepseek']);
    const response = await fetch(`${gateway.url}/v1beta/models/deepseek:streamGenerateContent`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'hi' }] }] }),
    });
    const chunks = (await response.json()) as { candidates: { content: { parts: { text?: string }[] } }[] }[];
    expect(Array.isArray(chunks)).toBe(true);
    expect(chunks[0]?.candidates[0]?.content.parts.map((part) => part.text).join('')).toContain('You said: hi');
  });
});
