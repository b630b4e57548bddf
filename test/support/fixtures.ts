import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The one loader of recorded provider traffic in `test/fixtures/` (provenance in its README).
 * Paths are relative to that directory, e.g. `anthropic/vercel-clear-thinking.1.json`.
 */

/** Absolute path of `test/fixtures/`. */
export const FIXTURES_ROOT = fileURLToPath(new URL('../fixtures/', import.meta.url));

/** Absolute path of one fixture file or directory. */
export function fixturePath(relativePath: string): string {
  return path.join(FIXTURES_ROOT, relativePath);
}

/** A fixture file's text, exactly as stored. */
export function readFixtureText(relativePath: string): string {
  return readFileSync(fixturePath(relativePath), 'utf8');
}

/** A fixture file parsed as JSON. */
export function readFixtureJson<T = unknown>(relativePath: string): T {
  return JSON.parse(readFixtureText(relativePath)) as T;
}

/** The non-empty lines of a `*.chunks.txt` file (one provider event JSON per line). */
export function readFixtureLines(relativePath: string): string[] {
  return readFixtureText(relativePath)
    .split('\n')
    .filter((line) => line.trim() !== '');
}

/** File names in one fixture directory, sorted. */
export function listFixtures(directory: string): string[] {
  return readdirSync(fixturePath(directory)).sort();
}

/** One request/response pair of a `*.cassette.json` file. */
export interface CassetteInteraction<Body = unknown> {
  request: { uri: string; body: Body };
  response: { status: number; content_type?: string; body: Body };
}

/** The interactions of a `*.cassette.json` file. */
export function readCassette<Body = unknown>(relativePath: string): CassetteInteraction<Body>[] {
  return readFixtureJson<{ interactions: CassetteInteraction<Body>[] }>(relativePath).interactions;
}
