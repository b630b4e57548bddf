import { InvalidArgumentError, type Command, Option } from 'commander';
import type { ResponsesReasoningOnlyShape } from '../emulators/responses/responses-emulator.js';
import {
  addEffortOptions,
  CONTROL_ENDPOINTS_HELP,
  type EmulateEffortFlags,
  effortRules,
  parseEmulatorPort,
  waitForStopSignal,
  listening,
  addRequestLogOption,
  type EmulateLogFlags,
  requestLogLimits,
} from './emulate-options.js';

/**
 * `hermes emulate responses`: runs the OpenAI Responses emulator until SIGINT/SIGTERM. Two
 * instances with different `--issuer` values act as two deployments whose encrypted reasoning
 * does not verify at each other ("The encrypted content … could not be verified.").
 */

interface EmulateResponsesFlags extends EmulateLogFlags {
  port: number;
  host: string;
  issuer: string;
  rotateIds?: boolean;
  reasoningOnly?: ResponsesReasoningOnlyShape[];
  encryptedRejection?: 'openai' | 'relay' | 'xai';
}

const REASONING_ONLY_SHAPES: readonly string[] = ['summary-only', 'temporary-id', 'max-output-tokens'];

/** `summary-only,max-output-tokens`: the reasoning-only answers to serve first (SPEC §24.6). */
function parseReasoningOnly(value: string): ResponsesReasoningOnlyShape[] {
  const shapes = value.split(',').map((shape) => shape.trim());
  const unknown = shapes.find((shape) => !REASONING_ONLY_SHAPES.includes(shape));
  if (unknown !== undefined) {
    throw new InvalidArgumentError(`"${unknown}" is not one of ${REASONING_ONLY_SHAPES.join(', ')}`);
  }
  return shapes as ResponsesReasoningOnlyShape[];
}

/** Adds the `responses` subcommand to the `hermes emulate` parent. */
export function registerEmulateResponsesCommand(emulate: Command): void {
  const command = emulate
    .command('responses')
    .description('Run an OpenAI Responses API emulator (POST /v1/responses, encrypted reasoning items)')
    .option('--port <port>', 'port to listen on (0 = any free port)', parseEmulatorPort, 0)
    .option('--host <host>', 'address to bind', '127.0.0.1')
    .option('--issuer <name>', 'issuer identity sealed into encrypted_content', 'openai')
    .option('--rotate-ids', 'rotate item ids between output_item.added and .done, as GitHub Copilot does')
    .option(
      '--reasoning-only <shapes>',
      'answer the first requests with reasoning only, one shape each (summary-only, temporary-id, max-output-tokens; comma-separated)',
      parseReasoningOnly,
    )
    .addOption(
      new Option(
        '--encrypted-rejection <wording>',
        'word a refused encrypted_content as OpenAI does, as a relay does ("… was not issued to this caller") or as xAI does ("Could not decrypt …")',
      )
        .choices(['openai', 'relay', 'xai'])
        .default('openai'),
    );
  addRequestLogOption(addEffortOptions(command))
    .addHelpText('after', CONTROL_ENDPOINTS_HELP)
    .action(async (flags: EmulateResponsesFlags & EmulateEffortFlags) => {
      const { startResponsesEmulator } = await import('../emulators/responses/responses-emulator.js');
      const emulator = await listening(flags.host, flags.port, () =>
        startResponsesEmulator({
          host: flags.host,
          requestLog: requestLogLimits(flags),
          port: flags.port,
          issuer: flags.issuer,
          rotateIds: flags.rotateIds === true,
          reasoningOnly: flags.reasoningOnly ?? [],
          encryptedRejection: flags.encryptedRejection ?? 'openai',
          ...effortRules(flags),
        }),
      );
      process.stdout.write(`emulator responses listening on ${emulator.baseUrl}\n`);
      await waitForStopSignal();
      await emulator.close();
    });
}
