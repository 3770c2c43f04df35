/**
 * `/init` and `gong init`: the model reads the repository and writes AGENTS.md, the file coding
 * agents (gong, codex, and Claude Code through CLAUDE.md's import) read first in a project.
 */

export const INIT_PROMPT = `Write an AGENTS.md file at the root of this repository: the guide a coding agent reads before it works here.

First read the repository: its README and other documentation, the build and package files (package.json, Makefile, pyproject.toml, Cargo.toml, go.mod and the like), the CI configuration, the layout of its source and test folders, and a few central source files. If AGENTS.md, CLAUDE.md, GEMINI.md, .cursorrules, .cursor/rules or .github/copilot-instructions.md exist, read them and keep what is still true.

Then write AGENTS.md (replace it if it exists) with what an agent cannot guess and needs on its first task:
- the commands that build, lint, type-check and test the project, and how to run a single test;
- the architecture in a few lines: the main folders and what lives where, how the parts depend on each other;
- the conventions the code follows that differ from common practice (naming, error handling, formatting, where tests go);
- anything surprising: generated files not to edit, required environment variables, services the tests need.

Keep it short and concrete: facts you saw in the repository, each command exactly as it is run, no general advice, nothing invented. When you are done, say in two or three sentences what the file covers.`;

/** The commands that send a prompt rather than act on the shell (a user's own command file of the same name wins). */
export const PROMPT_COMMANDS: Readonly<Record<string, { prompt: string; help: string }>> = {
  init: { prompt: INIT_PROMPT, help: "the model reads the repository and writes AGENTS.md" },
};

/** The prompt a line such as `/init` stands for, if it names one. */
export function promptCommand(text: string): string | undefined {
  const name = /^\/(\S+)\s*$/.exec(text.trim())?.[1]?.toLowerCase();
  return name !== undefined && Object.hasOwn(PROMPT_COMMANDS, name) ? PROMPT_COMMANDS[name].prompt : undefined;
}
