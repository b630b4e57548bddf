import { Option, type Command } from 'commander';
import { UsageError } from '../core/errors.js';
import type { ContinuityFlags } from './doctor-continuity.js';

/** Flags of `hermes doctor`. */
interface DoctorFlags extends ContinuityFlags {
  probe?: boolean | string;
  matrix?: boolean;
  probeResume?: string;
}

/** Registers `hermes doctor [--probe [continuity]]`. */
export function registerDoctorCommand(program: Command): void {
  program
    .command('doctor')
    .description(
      'Check the setup: Node, $HERMES_HOME, state.db, config.yaml, API keys (never their values), the configured route, learned verdicts and each MCP server.',
    )
    .option(
      '--probe [kind]',
      'also send one tiny request to the route and report status and latency; --probe continuity plays the hidden-number probe instead (below)',
    )
    .option('--provider <id>', 'the route to check or probe: provider id, or emulator:PERSONA (default: config.yaml)')
    .option('--model <id>', 'model id')
    .option('--base-url <url>', 'provider base URL')
    .option('--api-key <key>', "API key (default: the provider's environment variable; never stored)")
    .option(
      '--api <api>',
      'wire API override: chat_completions, anthropic_messages, bedrock_converse, gemini, codex_responses',
    )
    .option(
      '--via <way>',
      'continuity probe: the way in, cli (hermes chat, the default), chat, messages, responses or gemini (a gateway door), or acp (hermes acp)',
    )
    .option('--json', 'continuity probe: print {"route", "verdict", "scenarios": [{"name", "verdict", "detail"}]}')
    .option('-y, --yes', 'continuity probe: do not ask before sending requests to a real (paid) route')
    .option('--matrix', 'continuity probe over every built-in emulator persona and way in: print docs/conformance.md')
    .addOption(new Option('--probe-resume <session>').hideHelp())
    .addHelpText(
      'after',
      `
Exit code 0 when every check passes, 1 when one fails.

Continuity probe (--probe continuity): proves that a route gets its model's reasoning back.
The model chooses a secret number in its private reasoning and never writes it; then the
number is asked for in four scenarios, each in a conversation of its own:
  tool-loop    after a tool call
  resume       from a new hermes process (through a door: a new gateway; acp: a new agent)
  compaction   after the earlier turns were summarised
  branch       in a branch of the session
Verdicts, per scenario and overall: kept (the number came back), lost (it did not, although the
route should get the reasoning back), not-read (the route table sends this route no earlier
reasoning, by design), error (a request failed). Exit 0 for kept and not-read, 1 for lost and
error. The probe's sessions are stored, marked as probes and left out of hermes sessions list.
On a real route it prints the estimated cost (a few cents) and asks first; --yes skips the
question, and without a terminal it refuses unless --yes is given.

Examples:
  hermes doctor --probe continuity                         the configured route, through hermes chat
  hermes doctor --probe continuity --provider deepseek --model deepseek-v4-flash --yes
  hermes doctor --probe continuity --via messages          through the gateway's Messages door (Claude Code's)
  hermes doctor --probe continuity --via acp               through hermes acp, as an editor drives it
  hermes doctor --probe continuity --provider emulator:gemini --json
  hermes doctor --probe continuity --matrix                every emulator persona × way in (docs/conformance.md)`,
    )
    .action(async (flags: DoctorFlags) => {
      const { withCliContext } = await import('./cli-context.js');
      if (flags.probeResume !== undefined) {
        const { runProbeResumeChild } = await import('./doctor-continuity-resume.js');
        await withCliContext((context) => runProbeResumeChild(flags.probeResume as string, flags, context));
        return;
      }
      if (typeof flags.probe === 'string' && flags.probe !== 'continuity') {
        throw new UsageError(`unknown probe "${flags.probe}" (--probe alone sends one request; --probe continuity)`);
      }
      if (flags.probe === 'continuity') {
        if (flags.matrix) {
          const { printConformanceMatrix } = await import('./doctor-conformance.js');
          await printConformanceMatrix(Boolean(flags.json));
          return;
        }
        const { runContinuityDoctor } = await import('./doctor-continuity.js');
        process.exitCode = await withCliContext((context) => runContinuityDoctor(flags, context));
        return;
      }
      const misplaced = (['via', 'json', 'yes', 'matrix'] as const).find((name) => flags[name] !== undefined);
      if (misplaced) throw new UsageError(`--${misplaced} belongs to --probe continuity`);
      // Loaded on use: the probe reaches every transport, which other commands need not load.
      const { runDoctor } = await import('./doctor-run.js');
      if (!(await runDoctor(Boolean(flags.probe), flags))) process.exitCode = 1;
    });
}
