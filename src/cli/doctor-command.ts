import type { Command } from 'commander';

/** Registers `hermes doctor [--probe]`. */
export function registerDoctorCommand(program: Command): void {
  program
    .command('doctor')
    .description(
      'Check the setup: Node, $HERMES_HOME, state.db, config.yaml, API keys (never their values), the configured route, learned verdicts and each MCP server.',
    )
    .option('--probe', 'also send one tiny request to the configured provider and report status and latency')
    .addHelpText('after', '\nExit code 0 when every check passes, 1 when one fails.')
    .action(async (flags: { probe?: boolean }) => {
      // Loaded on use: the probe reaches every transport, which other commands need not load.
      const { runDoctor } = await import('./doctor-run.js');
      if (!(await runDoctor(Boolean(flags.probe)))) process.exitCode = 1;
    });
}
