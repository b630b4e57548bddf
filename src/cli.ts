#!/usr/bin/env node
// The AWS SDK warns on every Node 20 start; Node 20 is this project's supported floor.
process.env['AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED'] ??= 'true';
const { runCli } = await import('./cli/cli-main.js');

process.exitCode = await runCli(process.argv);
