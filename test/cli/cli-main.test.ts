import { describe, expect, it } from 'vitest';
import { withChatShortcut } from '../../src/cli/cli-main.js';

describe('top-level chat shortcuts (SPEC §20: hermes -c, hermes --resume ID, hermes -r ID)', () => {
  const argv = (...rest: string[]) => ['node', 'hermes', ...rest];
  it.each([
    [argv('-c'), argv('chat', '-c')],
    [argv('--resume', 'X', '-q', 'hi'), argv('chat', '--resume', 'X', '-q', 'hi')],
    [argv('--resume=X'), argv('chat', '--resume=X')],
    [argv('-r', 'X'), argv('chat', '-r', 'X')],
    [argv('-q', 'hello'), argv('chat', '-q', 'hello')],
  ])('%j → %j', (input, expected) => {
    expect(withChatShortcut(input)).toEqual(expected);
  });
  it('leaves subcommands, --help and an empty command line alone', () => {
    for (const input of [argv('sessions', 'list'), argv('--help'), argv(), argv('chat', '-c')]) {
      expect(withChatShortcut(input)).toEqual(input);
    }
  });
});
