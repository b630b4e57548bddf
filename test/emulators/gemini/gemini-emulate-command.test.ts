import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { registerEmulateGeminiCommand } from '../../../src/cli/emulate-gemini-command.js';

describe('hermes emulate gemini (DESIGN.md public surfaces)', () => {
  it('registers the gemini subcommand with --port and --host', () => {
    const emulate = new Command('emulate');
    registerEmulateGeminiCommand(emulate);
    const gemini = emulate.commands.find((command) => command.name() === 'gemini');
    expect(gemini?.options.map((option) => option.long)).toEqual(['--port', '--host']);
  });
});
