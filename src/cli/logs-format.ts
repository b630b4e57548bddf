import type { styles } from './cli-output.js';

/** Filters of `hermes logs`. */
export interface LogFilter {
  minimumLevel?: number;
  session?: string;
  grep?: string;
}

const LEVELS: Record<string, number> = { trace: 10, debug: 20, info: 30, warn: 40, warning: 40, error: 50, fatal: 60 };
const NAMES: Record<number, string> = { 10: 'TRACE', 20: 'DEBUG', 30: 'INFO', 40: 'WARN', 50: 'ERROR', 60: 'FATAL' };

/** Pino level number for a name, or undefined. */
export function levelNumber(name: string): number | undefined {
  return LEVELS[name.toLowerCase()];
}

/**
 * One pino JSON line → `time LEVEL [session] message` plus indented details (decisions,
 * fields), or null when filtered out. Non-JSON lines pass through as text.
 */
export function formatLogLine(line: string, filter: LogFilter, style: ReturnType<typeof styles>): string | null {
  let record: Record<string, unknown>;
  try {
    record = JSON.parse(line) as Record<string, unknown>;
  } catch {
    return filter.grep && !line.toLowerCase().includes(filter.grep) ? null : line;
  }
  const level = typeof record['level'] === 'number' ? record['level'] : 30;
  if (filter.minimumLevel !== undefined && level < filter.minimumLevel) return null;
  if (filter.session && record['session'] !== filter.session) return null;
  const time = typeof record['time'] === 'string' ? record['time'].replace('T', ' ').replace(/\.\d+Z$/, 'Z') : '';
  const name = NAMES[level] ?? String(level);
  const colour = level >= 50 ? style.red : level >= 40 ? style.yellow : (text: string) => text;
  const session = typeof record['session'] === 'string' ? ` [${record['session']}]` : '';
  const details: string[] = [];
  for (const [key, value] of Object.entries(record)) {
    if (['level', 'time', 'pid', 'hostname', 'msg', 'session', 'family'].includes(key)) continue;
    if (key === 'decisions' && Array.isArray(value)) {
      for (const decision of value) details.push(`    ${String(decision)}`);
    } else {
      details.push(`    ${key}: ${typeof value === 'string' ? value : JSON.stringify(value)}`);
    }
  }
  const text = [
    `${style.dim(time)} ${colour(name.padEnd(5))}${session} ${String(record['msg'] ?? '')}`,
    ...details,
  ].join('\n');
  if (filter.grep && !text.toLowerCase().includes(filter.grep)) return null;
  return text;
}
