/** Whether colour/ANSI styling is allowed on a stream (NO_COLOR and non-TTY disable it). */
export function useColor(stream: NodeJS.WriteStream): boolean {
  return Boolean(stream.isTTY) && !process.env['NO_COLOR'] && process.env['TERM'] !== 'dumb';
}

/** ANSI helpers that degrade to plain text when colour is off. */
export function styles(enabled: boolean) {
  const wrap = (open: string, close: string) => (text: string) =>
    enabled ? `\x1b[${open}m${text}\x1b[${close}m` : text;
  return {
    dim: wrap('2', '22'),
    bold: wrap('1', '22'),
    red: wrap('31', '39'),
    yellow: wrap('33', '39'),
    cyan: wrap('36', '39'),
    green: wrap('32', '39'),
  };
}

/** Prints JSON to stdout with a trailing newline. */
export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

/** Formats epoch milliseconds as `YYYY-MM-DD HH:MM` in local time. */
export function formatTime(epochMs: number): string {
  const date = new Date(epochMs);
  const pad = (value: number) => String(value).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())} ${pad(date.getHours())}:${pad(date.getMinutes())}`;
}

/** A unified diff for the terminal: removed lines red, added green, hunk headers cyan, file headers bold. */
export function styleDiff(diff: string, style: ReturnType<typeof styles>): string {
  return diff
    .split('\n')
    .map((line) => {
      if (line.startsWith('--- ') || line.startsWith('+++ ')) return style.bold(line);
      if (line.startsWith('@@')) return style.cyan(line);
      if (line.startsWith('+')) return style.green(line);
      if (line.startsWith('-')) return style.red(line);
      return line;
    })
    .join('\n');
}
