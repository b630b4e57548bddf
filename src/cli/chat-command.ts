import type { Command } from 'commander';

/** Registers `hermes chat` (placeholder until its issue lands). */
export function registerChatCommand(_program: Command): void {}
