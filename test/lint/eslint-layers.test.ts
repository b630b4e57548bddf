import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

// The layer rule of eslint.config.js (docs/architecture.md): imports point one way, core → replay →
// transports → storage → runtime → gateway/cli; emulators import core and wire types only, and
// only the CLI (with import()) and the tests import them.

const eslint = new ESLint({ cwd: process.cwd() });

/** Messages of the layer rules for `code` linted as if it lived at `filePath`. */
async function layerMessages(filePath: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath });
  return (result?.messages ?? [])
    .filter((message) => message.ruleId === 'no-restricted-imports' || message.ruleId === 'no-restricted-syntax')
    .map((message) => message.message);
}

describe('eslint layer rule', () => {
  it.each([
    ['src/core/x.ts', "import { runAgentTurn } from '../runtime/agent-turn.js';\nexport const x = runAgentTurn;"],
    [
      'src/replay/x.ts',
      "import { getTransport } from '../transports/transport-registry.js';\nexport const x = getTransport;",
    ],
    [
      'src/transports/gemini/x.ts',
      "import { openLogger } from '../../logging/logger.js';\nexport const x = openLogger;",
    ],
    ['src/storage/x.ts', "import type { Route } from '../replay/replay-types.js';\nexport type X = Route;"],
    ['src/runtime/x.ts', "import { openRoute } from '../cli/cli-route.js';\nexport const x = openRoute;"],
    ['src/runtime/x.ts', "export const x = () => import('../emulators/gemini/gemini-emulator.js');"],
    [
      'src/gateway/x.ts',
      "import { getTransport } from '../transports/transport-registry.js';\nexport const x = getTransport;",
    ],
    [
      'src/emulators/gemini/x.ts',
      "import { isMustEcho } from '../../replay/replay-must-echo.js';\nexport const x = isMustEcho;",
    ],
    [
      'src/emulators/anthropic-messages/x.ts',
      "import { prepareAnthropicMessages } from '../../transports/anthropic-messages/anthropic-messages-encode.js';\nexport const x = prepareAnthropicMessages;",
    ],
    [
      'src/cli/x.ts',
      "import { startChatEmulator } from '../emulators/chat-completions/chat-emulator.js';\nexport const x = startChatEmulator;",
    ],
    ['src/core/x.ts', "import { readFileSync } from 'node:fs';\nexport const x = readFileSync;"],
  ])('%s: %s is refused', async (filePath, code) => {
    expect(await layerMessages(filePath, code)).toHaveLength(1);
  });

  it.each([
    ['src/replay/x.ts', "import type { Message } from '../core/message.js';\nexport type X = Message;"],
    [
      'src/runtime/x.ts',
      "import { getTransport } from '../transports/transport-registry.js';\nexport const x = getTransport;",
    ],
    [
      'src/emulators/gemini/x.ts',
      "import type { GeminiPart } from '../../transports/gemini/gemini-wire.js';\nexport type X = GeminiPart;",
    ],
    [
      'src/emulators/gemini/x.ts',
      "import { FaultQueue } from '../shared/emulator-faults.js';\nexport const x = FaultQueue;",
    ],
    [
      'src/transports/gemini/x.ts',
      "import { postJson } from '../shared/transport-http.js';\nexport const x = postJson;",
    ],
    ['src/cli/x.ts', "export const x = () => import('../emulators/chat-completions/chat-emulator.js');"],
    [
      'src/cli/x.ts',
      "import type { GeminiEmulator } from '../emulators/gemini/gemini-emulator.js';\nexport type X = GeminiEmulator;",
    ],
    ['src/gateway/x.ts', "import { runAgentTurn } from '../runtime/agent-turn.js';\nexport const x = runAgentTurn;"],
  ])('%s: %s is allowed', async (filePath, code) => {
    expect(await layerMessages(filePath, code)).toEqual([]);
  });

  it('names the folders a layer may import', async () => {
    const [message] = await layerMessages(
      'src/storage/x.ts',
      "import { getTransport } from '../transports/transport-registry.js';\nexport const x = getTransport;",
    );
    expect(message).toContain('src/storage may import only core, logging, config');
  });
});
