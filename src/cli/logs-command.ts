import { existsSync, openSync, readSync, closeSync, statSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Command } from 'commander';
import { UsageError } from '../core/errors.js';
import { knownSecrets, redactText } from '../core/redact.js';
import { hermesHome, logsDir } from '../storage/store-paths.js';
import { styles, useColor } from './cli-output.js';
import { formatLogLine, levelNumber, type LogFilter } from './logs-format.js';

interface LogsFlags {
  follow?: boolean;
  lines: string;
  level?: string;
  session?: string;
  grep?: string;
  file: string;
}

/** Registers `hermes logs`. */
export function registerLogsCommand(program: Command): void {
  program
    .command('logs')
    .description('Print $HERMES_HOME/logs (agent.log by default) readably; filter by level, session or text.')
    .option('-f, --follow', 'keep printing new lines as they are written (Ctrl-C to stop)')
    .option('-n, --lines <n>', 'how many of the last matching lines to print first', '50')
    .option('--level <level>', 'minimum level: debug, info, warn, error')
    .option('--session <id>', 'only lines of this session')
    .option('--grep <text>', 'only lines containing this text (case-insensitive)')
    .option('--file <name>', 'agent, errors or gateway', 'agent')
    .action(async (flags: LogsFlags) => {
      const count = Number.parseInt(flags.lines, 10);
      if (!Number.isInteger(count) || count < 0) throw new UsageError('-n/--lines must be a whole number');
      if (!['agent', 'errors', 'gateway'].includes(flags.file))
        throw new UsageError('--file must be agent, errors or gateway');
      const filter: LogFilter = {};
      if (flags.level) {
        const minimum = levelNumber(flags.level);
        if (minimum === undefined) throw new UsageError(`unknown --level "${flags.level}" (debug, info, warn, error)`);
        filter.minimumLevel = minimum;
      }
      if (flags.session) filter.session = flags.session;
      if (flags.grep) filter.grep = flags.grep.toLowerCase();
      const path = join(logsDir(hermesHome()), `${flags.file}.log`);
      const style = styles(useColor(process.stdout));
      // Lines are redacted when written; a line an older version wrote is redacted again here.
      const secrets = knownSecrets(undefined, process.env);
      const print = (line: string) => {
        const formatted = formatLogLine(line, filter, style);
        if (formatted !== null) process.stdout.write(`${redactText(formatted, secrets)}\n`);
      };
      const existing = existsSync(path) ? readFileSync(path, 'utf8').split('\n').filter(Boolean) : [];
      const matching = existing.filter((line) => formatLogLine(line, filter, style) !== null);
      for (const line of matching.slice(Math.max(0, matching.length - count))) print(line);
      if (!existing.length && !flags.follow) process.stderr.write(`no log lines yet in ${path}\n`);
      if (flags.follow) await follow(path, existsSync(path) ? statSync(path).size : 0, print);
    });
}

/** Polls the file for appended bytes until SIGINT/SIGTERM; handles truncation/rotation. */
async function follow(path: string, start: number, print: (line: string) => void): Promise<void> {
  let offset = start;
  let partial = '';
  await new Promise<void>((resolve) => {
    const timer = setInterval(() => {
      if (!existsSync(path)) return;
      const size = statSync(path).size;
      if (size < offset) offset = 0;
      if (size === offset) return;
      const buffer = Buffer.alloc(size - offset);
      const descriptor = openSync(path, 'r');
      try {
        readSync(descriptor, buffer, 0, buffer.length, offset);
      } finally {
        closeSync(descriptor);
      }
      offset = size;
      const text = partial + buffer.toString('utf8');
      const lines = text.split('\n');
      partial = lines.pop() ?? '';
      for (const line of lines) if (line) print(line);
    }, 250);
    const stop = () => {
      clearInterval(timer);
      resolve();
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
}
