#!/usr/bin/env node
// The AWS SDK for JavaScript v3 prints a NodeVersionSupportWarning on Node < 22 when a client is
// made (Bedrock routes). Node 20 is a supported version here (package.json `engines`), so that
// notice is switched off with the SDK's documented opt-out, unless the user set the variable.
// https://github.com/aws/aws-sdk-js-v3/issues/7983
if (Number(process.versions.node.split('.')[0]) < 22) {
  process.env['AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED'] ??= 'true';
}
// Node 20's V8 (11.3) tiers undici's WebAssembly HTTP parser up to optimised code after its first
// exchange and, at exit, waits about 200 ms for that background compile: every short command paid
// it. A larger tiering budget (V8's `--wasm-tiering-budget`, default 1,800,000 bytes executed)
// leaves a short command on baseline code while a long-running gateway or chat still tiers up once
// the parser is hot. Node 22 and later do not wait; a budget given on node's command line wins.
if (
  Number(process.versions.node.split('.')[0]) < 22 &&
  !process.execArgv.some((flag) => flag.includes('wasm-tiering-budget'))
) {
  const { setFlagsFromString } = await import('node:v8');
  setFlagsFromString('--wasm-tiering-budget=30000000');
}
// Node 22.1 and later keep the compiled code of these modules on disk between runs (Node's
// `module.enableCompileCache`, in the operating system's temporary directory; NODE_COMPILE_CACHE
// names another, NODE_DISABLE_COMPILE_CACHE=1 turns it off): every later command starts sooner.
const { enableCompileCache } = (await import('node:module')) as { enableCompileCache?: () => unknown };
try {
  enableCompileCache?.();
} catch {
  // A cache that cannot be written only costs start-up time.
}
const { runCli } = await import('./cli/cli-main.js');

process.exitCode = await runCli(process.argv);
