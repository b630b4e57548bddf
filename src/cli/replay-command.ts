import type { Command } from 'commander';

/** Registers `hermes replay` (placeholder until its issue lands). */
export function registerReplayCommand(_program: Command): void {}
