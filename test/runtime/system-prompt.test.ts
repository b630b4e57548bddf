import { mkdtempSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildSystemPrompt, DEFAULT_SYSTEM_PROMPT, INSTRUCTION_FILE_CAP } from '../../src/runtime/system-prompt.js';
import { gatherProjectContext } from '../../src/runtime/system-prompt-context.js';

/** The chat system prompt: default text, environment, instruction files (capped, named), config. */

function tempDir(): string {
  return realpathSync(mkdtempSync(join(tmpdir(), 'hermes-prompt-')));
}

describe('system prompt assembly', () => {
  it('outside a repository: the default, the tools, the environment and the directory’s AGENTS.md', () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'AGENTS.md'), 'use tabs\n');
    writeFileSync(join(dir, 'CLAUDE.md'), 'ignored: AGENTS.md wins\n');
    const context = gatherProjectContext(dir, new Date(2026, 0, 5));
    expect(context.git).toBeNull();
    expect(context.date).toBe('2026-01-05');
    const prompt = buildSystemPrompt({ toolNames: ['read_file', 'edit_file'], context });
    expect(prompt.startsWith(DEFAULT_SYSTEM_PROMPT)).toBe(true);
    expect(prompt).toContain('Tools: read_file, edit_file.');
    expect(prompt).toContain(`Working directory: ${dir}\nOS: `);
    expect(prompt).toContain('Date: 2026-01-05\nGit repository: no');
    expect(prompt).toContain(
      `Project instructions from ${join(dir, 'AGENTS.md')}:\n<instructions>\nuse tabs\n</instructions>`,
    );
    expect(prompt).not.toContain('ignored');
  });

  it('an instruction file over the cap is cut on a character boundary and says so', () => {
    const dir = tempDir();
    // "é" is two bytes: the cap falls inside one.
    writeFileSync(join(dir, 'HERMES.md'), `x${'é'.repeat(INSTRUCTION_FILE_CAP)}`);
    const [file] = gatherProjectContext(dir).instructionFiles;
    expect(file?.truncated).toBe(true);
    expect(Buffer.byteLength(file?.text ?? '')).toBe(INSTRUCTION_FILE_CAP - 1);
    expect(file?.text.endsWith('é')).toBe(true);
    const prompt = buildSystemPrompt({ toolNames: [], context: gatherProjectContext(dir) });
    expect(prompt).toContain(`[cut at ${INSTRUCTION_FILE_CAP} bytes; read the file for the rest]\n</instructions>`);
  });

  it('config system_prompt replaces the default and instructions come last', () => {
    const context = gatherProjectContext(tempDir());
    const prompt = buildSystemPrompt({ base: 'Be a pirate.', instructions: 'Say arr.', toolNames: [], context });
    expect(prompt.startsWith('Be a pirate.\n\nEnvironment:\n')).toBe(true);
    expect(prompt.endsWith('\n\nSay arr.\n')).toBe(true);
  });
});
