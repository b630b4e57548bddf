import type { Command } from 'commander';

/** Registers `hermes sessions` (placeholder until its issue lands). */
export function registerSessionsCommand(_program: Command): void {}
