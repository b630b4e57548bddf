import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { FIXTURES_ROOT } from '../../support/fixtures.js';

/**
 * Loading of the recorded Responses traffic in `test/fixtures/` for decoder tests: every
 * streamed response as SSE text (one per `response.created`), every non-streaming body as JSON.
 */

/** Absolute path of `test/fixtures/`. */
export const FIXTURES_DIRECTORY = FIXTURES_ROOT;

/** One recorded streamed response. */
export interface StreamFixture {
  name: string;
  /** The SSE bytes as text, exactly as a server would send them. */
  sse: string;
  /** The parsed `data:` payloads, in order (the independent oracle for assertions). */
  events: Record<string, unknown>[];
}

/** One recorded non-streaming response body. */
export interface BodyFixture {
  name: string;
  body: Record<string, unknown>;
}

function fixtureFiles(): string[] {
  const responses = readdirSync(path.join(FIXTURES_DIRECTORY, 'openai-responses')).map(
    (file) => `openai-responses/${file}`,
  );
  const deepseek = readdirSync(path.join(FIXTURES_DIRECTORY, 'deepseek'))
    .filter((file) => file.includes('responses'))
    .map((file) => `deepseek/${file}`);
  return [...responses, ...deepseek].sort();
}

function dataPayloads(sse: string): Record<string, unknown>[] {
  return sse
    .split(/\r?\n/)
    .filter((line) => line.startsWith('data:'))
    .map((line) => line.slice(5).trim())
    .filter((data) => data !== '' && data !== '[DONE]')
    .map((data) => JSON.parse(data) as Record<string, unknown>);
}

/** Splits chunk-per-line recordings at each `response.created` (one file can hold several turns). */
function splitResponses(lines: string[]): string[][] {
  const groups: string[][] = [];
  for (const line of lines) {
    const type = (JSON.parse(line) as { type?: string }).type;
    if (type === 'response.created' || groups.length === 0) groups.push([]);
    groups[groups.length - 1]?.push(line);
  }
  return groups;
}

/** The 200 response bodies of a cassette, each named `file#interaction`. */
function cassetteBodies(file: string, text: string): { name: string; body: unknown }[] {
  const cassette = JSON.parse(text) as { interactions: { response: { status: number; body: unknown } }[] };
  return cassette.interactions.flatMap((interaction, index) =>
    interaction.response.status === 200 ? [{ name: `${file}#${index}`, body: interaction.response.body }] : [],
  );
}

/** Every streamed response in the Responses fixtures (chunk files and SSE cassette bodies). */
export function streamFixtures(): StreamFixture[] {
  const fixtures: StreamFixture[] = [];
  for (const file of fixtureFiles()) {
    const text = readFileSync(path.join(FIXTURES_DIRECTORY, file), 'utf8');
    if (file.endsWith('.chunks.txt')) {
      const lines = text.split('\n').filter((line) => line.trim() !== '');
      splitResponses(lines).forEach((group, index) => {
        const sse = group.map((line) => `data: ${line}\n\n`).join('');
        fixtures.push({ name: `${file}#${index}`, sse, events: dataPayloads(sse) });
      });
    } else if (file.endsWith('.cassette.json')) {
      for (const { name, body } of cassetteBodies(file, text)) {
        if (typeof body === 'string') fixtures.push({ name, sse: body, events: dataPayloads(body) });
      }
    }
  }
  return fixtures;
}

/** Every non-streaming 200 body in the Responses fixtures. */
export function bodyFixtures(): BodyFixture[] {
  const fixtures: BodyFixture[] = [];
  for (const file of fixtureFiles()) {
    const text = readFileSync(path.join(FIXTURES_DIRECTORY, file), 'utf8');
    if (file.endsWith('.cassette.json')) {
      for (const { name, body } of cassetteBodies(file, text)) {
        if (typeof body === 'object' && body !== null) fixtures.push({ name, body: body as Record<string, unknown> });
      }
    } else if (file.endsWith('.json')) {
      fixtures.push({ name: file, body: JSON.parse(text) as Record<string, unknown> });
    }
  }
  return fixtures;
}
