import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { GeminiEmulator } from '../../src/emulators/gemini/gemini-emulator.js';
import { GEMINI_SKIP_SIGNATURE_SENTINEL } from '../../src/transports/gemini/gemini-wire.js';
import { chatJson, type ChatJson, parseJson, runHermes, showSession, useE2e } from '../support/e2e.js';

/**
 * (Gemini native, SPEC §11, §23.2; WIRE.md §4.4): the real `hermes` binary
 * against the Gemini emulator over loopback — a tool loop with reasoning, `--resume`, zero 4xx,
 * every `thoughtSignature` back verbatim on the part it came on; a session moved between AI
 * Studio and Vertex never sends the other issuer's signatures; `replay preview --api gemini`
 * prints the body the next turn sends.
 */

const e2e = useE2e();

type Json = Record<string, unknown>;
type Part = Json & { functionCall?: Json; thoughtSignature?: string; text?: string; thought?: boolean };
interface Content {
  role: 'user' | 'model';
  parts: Part[];
}
interface StoredToolCall {
  id: string;
  function: { name: string; arguments: string };
  extra_content?: { google?: { thought_signature?: string } };
}
interface StoredMessage extends Json {
  role: string;
  content?: string | null;
  tool_calls?: StoredToolCall[];
  tool_call_id?: string;
  reasoning_details?: Json[];
  gemini_content_parts?: Part[];
  gemini_issuer?: string;
}
interface Shown {
  model_config: Json;
  messages: StoredMessage[];
}

const MODEL = 'gemini-3-pro-preview';

function aiStudioRoute(baseUrl: string): string[] {
  return ['--provider', 'google', '--api', 'gemini', '--model', MODEL, '--base-url', baseUrl, '--api-key', 'x'];
}

/** `replay preview` takes the route without credentials. */
function withoutKey(route: string[]): string[] {
  return route.slice(0, -2);
}

function vertexRoute(vertexBaseUrl: string): string[] {
  return [
    '--provider',
    'google-vertex',
    '--api',
    'gemini',
    '--model',
    MODEL,
    '--base-url',
    vertexBaseUrl,
    '--api-key',
    'x',
  ];
}

function assistants(shown: Shown): StoredMessage[] {
  return shown.messages.filter((message) => message.role === 'assistant');
}

/**
 * What a stored turn must look like on the wire for its own issuer: the stored parts verbatim
 * (thought parts, part boundaries and signatures untouched) plus the Gemini ≥ 3 call ids.
 */
function sameIssuerParts(message: StoredMessage): Part[] {
  const calls = message.tool_calls ?? [];
  let index = 0;
  return (message.gemini_content_parts ?? []).map((part) => {
    if (!part.functionCall) return part;
    const call = calls[index++];
    return { ...part, functionCall: { ...part.functionCall, id: call?.id } };
  });
}

/** Every signature a stored message holds: on its parts, its tool calls and its private record. */
function storedSignatures(message: StoredMessage): string[] {
  const signatures = (message.gemini_content_parts ?? []).flatMap((part) =>
    typeof part.thoughtSignature === 'string' ? [part.thoughtSignature] : [],
  );
  for (const call of message.tool_calls ?? []) {
    const signature = call.extra_content?.google?.thought_signature;
    if (signature) signatures.push(signature);
  }
  for (const entry of message.reasoning_details ?? []) {
    const signature = (entry['extra_content'] as StoredToolCall['extra_content'])?.google?.thought_signature;
    if (signature) signatures.push(signature);
  }
  return [...new Set(signatures)];
}

function contentsOf(body: unknown): Content[] {
  return (body as { contents: Content[] }).contents;
}

function modelContents(body: unknown): Content[] {
  return contentsOf(body).filter((content) => content.role === 'model');
}

describe('hermes chat against the Gemini emulator (SPEC §11)', () => {
  it('tool loop with reasoning, then --resume: every signature comes back verbatim on its own part, zero 4xx', async () => {
    const emulator = await e2e.gemini();
    const sandbox = e2e.sandbox();
    const route = aiStudioRoute(emulator.baseUrl);
    const first = await chatJson(sandbox, ['-q', 'read the file notes.txt', ...route]);
    expect(first.tool_calls.map((call) => call.name)).toEqual(['read_file']);
    expect(first.answer).toContain('alpha beta');
    expect(first.answer).toContain('Reasoning continuity: intact (1/1).');

    const resumed = await chatJson(sandbox, ['--resume', first.session_id, '-q', 'thanks', ...route]);
    // The emulator recovers each turn's reasoning only from a verified signature: 2/2 intact.
    expect(resumed.answer).toContain('Reasoning continuity: intact (2/2).');

    const shown = await showSession<Shown>(sandbox, first.session_id);
    const [toolTurn, answerTurn, thanksTurn] = assistants(shown);
    expect(thanksTurn).toBeDefined();
    const call = toolTurn?.tool_calls?.[0];
    // Capture (SPEC §11): the function-call signature sits on the call's extra_content and on its stored part.
    const callSignature = call?.extra_content?.google?.thought_signature;
    expect(typeof callSignature).toBe('string');
    expect(toolTurn?.gemini_content_parts?.find((part) => part.functionCall)?.thoughtSignature).toBe(callSignature);
    // The streamed trailing empty-text signature is the message-level signature, stored on the last text part.
    const record = answerTurn?.reasoning_details?.find((entry) => entry['type'] === 'hermes.native_assistant');
    const textSignature = (record?.['extra_content'] as StoredToolCall['extra_content'])?.google?.thought_signature;
    expect(typeof textSignature).toBe('string');
    expect(answerTurn?.gemini_content_parts?.at(-1)).toEqual({
      text: answerTurn?.content,
      thoughtSignature: textSignature,
    });

    expect(emulator.requests.map((request) => request.status)).toEqual([200, 200, 200]);
    const toolResult = {
      role: 'user',
      parts: [{ functionResponse: { name: 'read_file', response: { result: 'alpha beta\n' }, id: call?.id } }],
    };
    // Inside the tool loop: the step goes back exactly as it came, with its call id.
    expect(contentsOf(emulator.requests[1]?.body)).toEqual([
      { role: 'user', parts: [{ text: 'read the file notes.txt' }] },
      { role: 'model', parts: sameIssuerParts(toolTurn!) },
      toolResult,
    ]);
    // After --resume (a new process, history from state.db): the whole conversation, every part in place.
    const afterResume = emulator.requests[2]!;
    expect(contentsOf(afterResume.body)).toEqual([
      { role: 'user', parts: [{ text: 'read the file notes.txt' }] },
      { role: 'model', parts: sameIssuerParts(toolTurn!) },
      toolResult,
      { role: 'model', parts: sameIssuerParts(answerTurn!) },
      { role: 'user', parts: [{ text: 'thanks' }] },
    ]);
    // Verbatim on the bytes: each stored signature appears in the raw body as stored.
    for (const signature of [callSignature!, textSignature!])
      expect(afterResume.raw).toContain(JSON.stringify(signature));
    expect(afterResume.raw).not.toContain(GEMINI_SKIP_SIGNATURE_SENTINEL);
    expect(afterResume.raw).not.toMatch(/extra_content|hermes\.native_assistant|gemini_content_parts/);
    // SPEC §23.3: the request log explains each decision with sizes, never the signature values.
    const logs = await runHermes(['logs', '-n', '1000'], sandbox);
    expect(logs.stdout).toContain('thought_signature kept (same issuer and model family');
    for (const signature of [callSignature!, textSignature!]) expect(logs.stdout).not.toContain(signature);
  });

  /** Where each issuer lives: the emulator's loopback URLs, or the real Google hosts connected to it. */
  interface SwitchSetup {
    name: string;
    studioBaseUrl: (running: GeminiEmulator) => string;
    vertexBaseUrl: (running: GeminiEmulator) => string;
    env: (running: GeminiEmulator) => Record<string, string>;
    studioIssuer: string;
    vertexIssuer: string;
  }
  const realVertex = 'https://us-central1-aiplatform.googleapis.com';
  const realStudio = 'https://generativelanguage.googleapis.com';
  const switchSetups: SwitchSetup[] = [
    {
      name: 'loopback URLs (issuer kind from the path shape, scoped to the host)',
      studioBaseUrl: (running) => running.baseUrl,
      vertexBaseUrl: (running) => running.vertexBaseUrl,
      env: () => ({}),
      studioIssuer: 'ai-studio@127.0.0.1',
      vertexIssuer: 'vertex@127.0.0.1',
    },
    {
      name: 'the real Google hosts through HERMES_CONNECT_TO (issuer kind from the host)',
      studioBaseUrl: () => `${realStudio}/v1beta`,
      vertexBaseUrl: () => `${realVertex}/v1/projects/hermes-emulator/locations/us-central1`,
      env: (running) => {
        const origin = new URL(running.baseUrl).origin;
        return { HERMES_CONNECT_TO: `${realStudio}=${origin},${realVertex}=${origin}` };
      },
      studioIssuer: 'ai-studio',
      vertexIssuer: 'vertex',
    },
  ];

  it.each(switchSetups)(
    'AI Studio → Vertex → AI Studio via $name: Vertex never receives an AI Studio signature, AI Studio gets its own back (SPEC §23.2)',
    async (setup) => {
      const running = await e2e.gemini();
      const sandbox = e2e.sandbox();
      const env = setup.env(running);
      const studio = aiStudioRoute(setup.studioBaseUrl(running));
      const vertex = vertexRoute(setup.vertexBaseUrl(running));
      const first = await chatJson(sandbox, ['-q', 'read the file notes.txt', ...studio], env);
      const studioSignatures = assistants(await showSession<Shown>(sandbox, first.session_id)).flatMap(
        storedSignatures,
      );
      expect(studioSignatures.length).toBe(2);

      // Same session, Vertex (the emulator signs with another key there): another tool loop.
      const onVertexFrom = running.requests.length;
      const onVertex = parseJson<ChatJson>(
        await runHermes(
          ['chat', '--resume', first.session_id, '-q', 'read the file notes.txt', '--json', ...vertex],
          sandbox,
          env,
        ),
      );
      expect(onVertex.tool_calls.map((call) => call.name)).toEqual(['read_file']);
      const vertexRequests = running.requests.slice(onVertexFrom);
      expect(vertexRequests.map((request) => [request.issuer, request.status])).toEqual([
        ['vertex', 200],
        ['vertex', 200],
      ]);
      for (const request of vertexRequests) {
        for (const signature of studioSignatures) expect(request.raw).not.toContain(signature);
        // The earlier AI Studio steps are previous turns, which Gemini does not validate (WIRE.md §4.4), and the
        // current-turn step carries Vertex's own signature: no signature is missing, so no sentinel either.
        expect(request.raw).not.toContain(GEMINI_SKIP_SIGNATURE_SENTINEL);
      }
      const [studioTool, studioAnswer, vertexTool] = assistants(await showSession<Shown>(sandbox, first.session_id));
      expect([studioTool?.gemini_issuer, studioAnswer?.gemini_issuer, vertexTool?.gemini_issuer]).toEqual([
        setup.studioIssuer,
        setup.studioIssuer,
        setup.vertexIssuer,
      ]);
      // The foreign turns are rebuilt from their canonical fields: visible text and calls only.
      expect(modelContents(vertexRequests[1]?.body)).toEqual([
        {
          role: 'model',
          parts: [
            { functionCall: { name: 'read_file', args: { path: 'notes.txt' }, id: studioTool?.tool_calls?.[0]?.id } },
          ],
        },
        { role: 'model', parts: [{ text: studioAnswer?.content }] },
        { role: 'model', parts: sameIssuerParts(vertexTool!) },
      ]);

      // Back on AI Studio: its own signatures travel again, Vertex's never.
      const backFrom = running.requests.length;
      await chatJson(sandbox, ['--resume', first.session_id, '-q', 'thanks', ...studio], env);
      const studioAgain = running.requests.slice(backFrom);
      expect(studioAgain.map((request) => [request.issuer, request.status])).toEqual([['ai-studio', 200]]);
      const raw = studioAgain[0]!.raw;
      for (const signature of studioSignatures) expect(raw).toContain(JSON.stringify(signature));
      const [, , vertexToolNow, vertexAnswer] = assistants(await showSession<Shown>(sandbox, first.session_id));
      const vertexSignatures = [...storedSignatures(vertexToolNow!), ...storedSignatures(vertexAnswer!)];
      expect(vertexSignatures.length).toBe(2);
      for (const signature of vertexSignatures) expect(raw).not.toContain(signature);
      expect(modelContents(studioAgain[0]?.body).slice(0, 2)).toEqual([
        { role: 'model', parts: sameIssuerParts(studioTool!) },
        { role: 'model', parts: sameIssuerParts(studioAnswer!) },
      ]);
      expect(running.requests.every((request) => request.status === 200)).toBe(true);
    },
  );

  it('replay preview --api gemini on an exported session prints the body the next turn sends', async () => {
    const emulator = await e2e.gemini();
    const sandbox = e2e.sandbox();
    const route = aiStudioRoute(emulator.baseUrl);
    const first = await chatJson(sandbox, ['-q', 'read the file notes.txt', ...route]);
    const exported = await runHermes(['sessions', 'export', first.session_id], sandbox);
    expect(exported.code).toBe(0);
    const historyFile = join(sandbox.workspace, 'history.jsonl');
    writeFileSync(historyFile, exported.stdout);
    const preview = await runHermes(
      ['replay', 'preview', '--history', historyFile, ...withoutKey(route), '--json'],
      sandbox,
    );
    expect(preview.code).toBe(0);
    const previewBody = parseJson<Json>(preview);

    const before = emulator.requests.length;
    await runHermes(['chat', '--resume', first.session_id, '-q', 'next', '--json', ...route], sandbox);
    const sent = emulator.requests[before]!;
    expect(sent.status).toBe(200);
    const sentBody = sent.body as Json & { contents: Content[] };
    // The next turn adds its user message and the chat's tools; everything else is the preview.
    expect(sentBody.contents.at(-1)).toEqual({ role: 'user', parts: [{ text: 'next' }] });
    const { tools: _tools, ...sentWithoutTools } = sentBody;
    expect(previewBody).toEqual({ ...sentWithoutTools, contents: sentBody.contents.slice(0, -1) });
  });

  it('replay preview of an interrupted tool loop: the sentinel only on a current-turn call whose signature is foreign', async () => {
    const emulator = await e2e.gemini();
    const sandbox = e2e.sandbox();
    const first = await chatJson(sandbox, ['-q', 'read the file notes.txt', ...aiStudioRoute(emulator.baseUrl)]);
    const shown = await showSession<Shown>(sandbox, first.session_id);
    const [user, toolTurn, toolResult] = shown.messages.filter((message) => message.role !== 'system');
    const callSignature = toolTurn?.tool_calls?.[0]?.extra_content?.google?.thought_signature;
    expect(typeof callSignature).toBe('string');
    // History cut right after the tool result: the step is in the current turn (WIRE.md §4.4).
    const historyFile = join(sandbox.workspace, 'mid-turn.json');
    writeFileSync(historyFile, JSON.stringify([user, toolTurn, toolResult]));

    const preview = async (route: string[]) => {
      const run = await runHermes(
        ['replay', 'preview', '--history', historyFile, ...withoutKey(route), '--json'],
        sandbox,
      );
      expect(run.code).toBe(0);
      return { raw: run.stdout, body: parseJson<Json>(run) };
    };
    const studio = await preview(aiStudioRoute(emulator.baseUrl));
    expect(modelContents(studio.body)).toEqual([{ role: 'model', parts: sameIssuerParts(toolTurn!) }]);
    expect(studio.raw).not.toContain(GEMINI_SKIP_SIGNATURE_SENTINEL);

    const vertex = await preview(vertexRoute(emulator.vertexBaseUrl));
    expect(vertex.raw).not.toContain(callSignature!);
    expect(modelContents(vertex.body)).toEqual([
      {
        role: 'model',
        parts: [
          {
            functionCall: { name: 'read_file', args: { path: 'notes.txt' }, id: toolTurn?.tool_calls?.[0]?.id },
            thoughtSignature: GEMINI_SKIP_SIGNATURE_SENTINEL,
          },
        ],
      },
    ]);
    // Both previewed bodies are accepted by their issuer: the emulator enforces Gemini 3's current-turn rule.
    const origin = new URL(emulator.baseUrl).origin;
    const post = (url: string, body: Json) =>
      fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-goog-api-key': 'x' },
        body: JSON.stringify(body),
      });
    const studioAnswer = await post(`${emulator.baseUrl}/models/${MODEL}:generateContent`, studio.body);
    expect(studioAnswer.status).toBe(200);
    const vertexAnswer = await post(
      `${emulator.vertexBaseUrl}/publishers/google/models/${MODEL}:generateContent`,
      vertex.body,
    );
    expect(vertexAnswer.status).toBe(200);
    // Without the sentinel Vertex answers its documented 400 (proves the previous assertion can fail).
    const bare = structuredClone(vertex.body) as { contents: Content[] };
    delete bare.contents[1]!.parts[0]!.thoughtSignature;
    const rejected = await post(
      `${origin}/v1/projects/hermes-emulator/locations/us-central1/publishers/google/models/${MODEL}:generateContent`,
      bare,
    );
    expect(rejected.status).toBe(400);
    expect(await rejected.text()).toContain('is missing a `thought_signature`');
  });
});
