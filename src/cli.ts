#!/usr/bin/env node
import { runCli } from './cli/cli-main.js';

process.exitCode = await runCli(process.argv);
