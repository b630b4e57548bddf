import { afterEach, describe, expect, it } from 'vitest';
import { postChatCompletion } from '../support/e2e.js';
import { executeToolCall } from '../../src/tools/tool-registry.js';
import { makeGatewaySandbox, startPersona, startTestGateway } from '../gateway/gateway-test-helpers.js';
import { startSwappedWorkspace, type SwappedWorkspace } from './workspace-swap-helpers.js';

/**
 * No check-then-use gap (docs/architecture.md "Security"): while another process swaps the
 * workspace directory `d` with a symlink to a directory outside, as fast as it can, every tool
 * that takes a path — read_file, write_file, edit_file, list_directory, search_files — reads
 * and writes only what is inside: each opens the path once and checks the handle it opened.
 * Calls may fail while `d` is missing or a link (that is expected); none may touch the outside.
 */

/** Rounds of the five tools, and gateway turns: bounded, and enough for a gap to show. */
const ROUNDS = 150;
const GATEWAY_TURNS = 80;

let swapped: SwappedWorkspace | undefined;
afterEach(async () => {
  await swapped?.stop();
  swapped = undefined;
});

const allow = async () => true;

describe('tools under a directory swapped for an outside symlink', () => {
  it('read, write, edit, list and search never reach outside', async () => {
    swapped = await startSwappedWorkspace();
    const { workspace } = swapped;
    const outside = { reads: 0, lists: 0, searches: 0, writes: 0, edits: 0 };
    const succeeded = { reads: 0, writes: 0 };
    const call = (name: string, args: Record<string, unknown>) =>
      executeToolCall(name, JSON.stringify(args), { workspace, approve: allow });
    const wroteOutside = () => {
      const changed = swapped?.outsideChanged() ?? false;
      if (changed) swapped?.restoreOutside();
      return changed;
    };
    for (let round = 0; round < ROUNDS; round += 1) {
      const read = await call('read_file', { path: 'd/f.txt' });
      if (read.content.includes('OUTSIDE')) outside.reads += 1;
      if (!read.isError) succeeded.reads += 1;
      const listed = await call('list_directory', { path: 'd' });
      if (listed.content.includes('outside-only')) outside.lists += 1;
      const found = await call('search_files', { pattern: 'needle', path: 'd' });
      if (found.content.includes('OUTSIDE')) outside.searches += 1;
      const written = await call('write_file', { path: `d/sub-${round}/new.txt`, content: 'x' });
      if (!written.isError) succeeded.writes += 1;
      if (wroteOutside()) outside.writes += 1;
      await call('write_file', { path: `d/new-${round}.txt`, content: 'x' });
      if (wroteOutside()) outside.writes += 1;
      await call('edit_file', { path: 'd/f.txt', old_string: 'needle', new_string: 'needle ' });
      if (wroteOutside()) outside.edits += 1;
    }
    expect(outside).toEqual({ reads: 0, lists: 0, searches: 0, writes: 0, edits: 0 });
    // The tools kept working whenever `d` was the real directory.
    expect(succeeded.reads + succeeded.writes).toBeGreaterThan(0);
  });

  it('gateway turns that read and write through the swapped directory never reach outside', async () => {
    swapped = await startSwappedWorkspace();
    const { emulator, route } = await startPersona('deepseek');
    const sandbox = makeGatewaySandbox();
    const gateway = await startTestGateway(sandbox.dbPath, route, swapped.workspace, { yolo: true });
    try {
      const outside = { reads: 0, writes: 0 };
      for (let turn = 0; turn < GATEWAY_TURNS; turn += 1) {
        const question = turn % 2 === 0 ? 'read the file d/f.txt' : `write "x" to d/turn-${turn}.txt`;
        const response = await postChatCompletion(gateway.url, {
          model: 'm',
          messages: [{ role: 'user', content: question }],
        });
        const body = (await response.json()) as { hermes?: { tool_calls?: { result: string }[] } };
        if (body.hermes?.tool_calls?.some((call) => call.result.includes('OUTSIDE'))) outside.reads += 1;
        if (swapped.outsideChanged()) {
          outside.writes += 1;
          swapped.restoreOutside();
        }
      }
      expect(outside).toEqual({ reads: 0, writes: 0 });
    } finally {
      await gateway.close();
      await emulator.close();
    }
  });
});
