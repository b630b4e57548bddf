import type { Command } from 'commander';

/** Registers `hermes logs` (placeholder until its issue lands). */
export function registerLogsCommand(_program: Command): void {}
