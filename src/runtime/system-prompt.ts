import { INSTRUCTION_FILE_CAP, type ProjectContext } from './system-prompt-context.js';

export { INSTRUCTION_FILE_CAP };

/**
 * The system prompt of a `hermes chat` session: who the agent is, its tools, how to work in a
 * repository, then the environment (working directory, OS, date, git state) and the project's
 * instruction files. Built once when a session stores its first message and stored with it, so
 * every later request (resume included) sends the same bytes (prompt caching; Anthropic binds
 * signed thinking to the system prompt, WIRE.md §2.6b).
 */

/** The default role and working rules (replaced by `config.yaml` `system_prompt`). */
export const DEFAULT_SYSTEM_PROMPT = `You are Hermes, a coding agent working in the user's repository from their terminal.
You read, search and change files and run shell commands through your tools; every change and
command may need the user's approval, and a refused call comes back as a tool error.

How to work:
- Look before you act: list directories, search and read the relevant files before changing them.
- Make small, targeted edits with edit_file (exact text replacement); use write_file only for new
  files or whole rewrites. Keep the project's existing style.
- After changing code, run the project's tests or build with run_shell when they exist, and read
  the output before saying the work is done.
- Never invent file contents, command output or test results; say what you did not check.
- Do not run destructive or irreversible commands (deleting data, force pushes) unless asked.
- Answer concisely: what you changed, where, and anything left to do.`;

/** What the prompt is assembled from. */
export interface SystemPromptInput {
  /** `config.yaml` `system_prompt`: replaces {@link DEFAULT_SYSTEM_PROMPT}. */
  base?: string | undefined;
  /** `config.yaml` `instructions`: appended after everything else. */
  instructions?: string | undefined;
  /** Names of the tools offered to the model. */
  toolNames: readonly string[];
  context: ProjectContext;
}

/** Assembles the system prompt text (pure: every fact comes in through `input`). */
export function buildSystemPrompt(input: SystemPromptInput): string {
  const { context } = input;
  const sections: string[] = [(input.base ?? DEFAULT_SYSTEM_PROMPT).trimEnd()];
  if (input.toolNames.length) sections.push(`Tools: ${input.toolNames.join(', ')}.`);
  const environment = [
    `Working directory: ${context.cwd}`,
    `OS: ${context.os}`,
    `Date: ${context.date}`,
    context.git
      ? `Git repository: yes (root ${context.git.root}; branch ${context.git.branch ?? '(detached)'}; ${context.git.dirty === null ? 'status unknown' : context.git.dirty ? 'uncommitted changes' : 'clean'})`
      : 'Git repository: no',
  ];
  sections.push(`Environment:\n${environment.join('\n')}`);
  for (const file of context.instructionFiles) {
    const cut = file.truncated ? `\n[cut at ${INSTRUCTION_FILE_CAP} bytes; read the file for the rest]` : '';
    sections.push(
      `Project instructions from ${file.path}:\n<instructions>\n${file.text.trimEnd()}${cut}\n</instructions>`,
    );
  }
  if (input.instructions?.trim()) sections.push(input.instructions.trim());
  return `${sections.join('\n\n')}\n`;
}
