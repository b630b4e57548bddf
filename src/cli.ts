#!/usr/bin/env node
// The AWS SDK for JavaScript v3 prints a NodeVersionSupportWarning on Node < 22 when a client is
// made (Bedrock routes). Node 20 is a supported version here (package.json `engines`), so that
// notice is switched off with the SDK's documented opt-out, unless the user set the variable.
// https://github.com/aws/aws-sdk-js-v3/issues/7983
if (Number(process.versions.node.split('.')[0]) < 22) {
  process.env['AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED'] ??= 'true';
}
const { runCli } = await import('./cli/cli-main.js');

process.exitCode = await runCli(process.argv);
