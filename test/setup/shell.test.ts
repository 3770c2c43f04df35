/**
 * The shell's side of what users bring (issue 26): `/skills` lists the skills found, `/help` lists
 * the custom commands with their argument hints, and Tab completes them.
 */
import { expect, test } from "bun:test";
import { cpSync } from "node:fs";
import { join } from "node:path";
import { commandInfos } from "../../lib/cli/custom-commands.ts";
import { completeInput } from "../../lib/cli/completion.ts";
import { makeStyle } from "../../lib/cli/render.ts";
import { runSlashCommand, slashCommandList, type SlashContext } from "../../lib/cli/slash-commands.ts";
import { discoverSetup } from "../../lib/setup/index.ts";
import { tempDir } from "../helpers/temp.ts";

const FIXTURE = join(import.meta.dir, "../fixtures/setup/project");

test("/skills lists the skills with where they came from; /help and Tab offer the custom commands", async () => {
  using work = tempDir("gong-shell-setup-");
  using home = tempDir("gong-shell-setup-home-");
  cpSync(FIXTURE, work.dir, { recursive: true });
  const brought = await discoverSetup({ cwd: work.dir, home: home.dir, gongHome: join(home.dir, ".gong") });
  let out = "";
  const ctx = {
    host: { setup: { brought } },
    out: (s: string) => void (out += s),
    style: makeStyle(false),
  } as unknown as SlashContext;

  await runSlashCommand("/skills", ctx);
  expect(out).toContain("  brand-guidelines         Applies Anthropic's official brand colors");
  expect(out).toContain(`project: ${join(work.dir, ".claude/skills/internal-comms/SKILL.md")}`);

  out = "";
  await runSlashCommand("/help", ctx);
  expect(out).toContain("your commands");
  expect(out).toContain("/feature-dev Optional feature description");
  expect(out).toContain("/commit-push-pr");
  expect(out).toContain("Commit, push, and open a PR (project)");

  const commands = [...slashCommandList(), ...commandInfos(brought.commands)];
  const completion = completeInput("/fe", 3, work.dir, commands)!;
  expect(completion.items.map((i) => i.value)).toEqual(["/feature-dev "]);
  expect(completeInput("/fi", 3, work.dir, commands)!.items.map((i) => i.value)).toEqual(["/find-docs "]);
});
