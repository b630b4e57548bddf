import type { Command } from 'commander';

/** Registers `hermes emulate` (placeholder until its issue lands). */
export function registerEmulateCommand(_program: Command): void {}
