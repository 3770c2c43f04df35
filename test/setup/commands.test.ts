/**
 * Custom slash commands (issue 26): Claude Code's markdown commands and gemini-cli's TOML commands,
 * expanded as those agents expand them; usable in print mode, RPC and ACP; shell parts from a
 * project only when it is trusted; bad files and looping @ includes named in one line. Fixtures are
 * published command files (test/fixtures/setup/SOURCES).
 */
import { describe, expect, test } from "bun:test";
import { cpSync, existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  discoverCommands,
  expandCommand,
  matchCommand,
  splitArguments,
  type ShellRunner,
} from "../../lib/setup/commands.ts";
import { LocalEnvironment } from "../../lib/env/local.ts";
import { environmentShell } from "../../lib/setup/commands.ts";
import { conversationOf } from "../../lib/testing/fake-llm/route.ts";
import { editor, until } from "../cli/acp-client.ts";
import { rpcProcess, startFakeLlm, useWorkspace, WIRE_APIS } from "../cli/helpers.ts";

const FIXTURE = join(import.meta.dir, "../fixtures/setup/project");
const ws = useWorkspace();

const find = () => discoverCommands({ cwd: ws.dir, home: ws.home, gongHome: join(ws.home, ".gong") });
const write = (path: string, text: string) => {
  mkdirSync(join(path, ".."), { recursive: true });
  writeFileSync(path, text);
};
const runner = (trusted: boolean): ShellRunner =>
  environmentShell(new LocalEnvironment({ root: ws.dir }), trusted, "the project is not trusted (run with --trust).");

describe("custom slash commands", () => {
  test("found in .claude/commands, .gemini/commands (git/x.toml is /git:x) and the user's; frontmatter read", async () => {
    cpSync(FIXTURE, ws.dir, { recursive: true });
    write(join(ws.home, ".claude/commands/mine.md"), "Say mine.\n");
    write(join(ws.dir, ".gemini/commands/git/commit.toml"), 'description = "Commit"\nprompt = "Commit {{args}}"\n');
    const { items, problems } = await find();
    expect(problems).toEqual([]);
    expect(items.map((c) => `${c.name}:${c.syntax}:${c.scope}`)).toEqual([
      "commit-push-pr:claude:project",
      "feature-dev:claude:project",
      "find-docs:gemini:project",
      "git:commit:gemini:project",
      "mine:claude:user",
    ]);
    const pr = items[0];
    expect(pr.description).toBe("Commit, push, and open a PR");
    expect(pr.allowedTools).toEqual([
      "Bash(git checkout --branch:*)",
      "Bash(git add:*)",
      "Bash(git status:*)",
      "Bash(git push:*)",
      "Bash(git commit:*)",
      "Bash(gh pr create:*)",
    ]);
    expect(items[1].argumentHint).toBe("Optional feature description");
    expect(items[2].description).toBe("Find relevantdocumentation and output GitHub URLs.");
  });

  test("$ARGUMENTS, $1 $2 (quoted words), and ARGUMENTS appended when the body has no placeholder", async () => {
    cpSync(FIXTURE, ws.dir, { recursive: true });
    write(join(ws.dir, ".claude/commands/pair.md"), "---\ndescription: d\n---\nFirst $1, then $2; all: $ARGUMENTS\n");
    write(join(ws.dir, ".claude/commands/bare.md"), "Do the thing.\n");
    const { items } = await find();
    expect(splitArguments(`a "b c" 'd e'`)).toEqual(["a", "b c", "d e"]);
    const pair = matchCommand('/pair one "two words"', items)!;
    expect((await expandCommand(pair.command, pair.args, { cwd: ws.dir })).text).toBe(
      'First one, then two words; all: one "two words"\n',
    );
    const bare = matchCommand("/bare now please", items)!;
    expect((await expandCommand(bare.command, bare.args, { cwd: ws.dir })).text).toBe(
      "Do the thing.\n\nARGUMENTS: now please",
    );
    const dev = matchCommand("/feature-dev add a --dry-run flag", items)!;
    expect((await expandCommand(dev.command, dev.args, { cwd: ws.dir })).text).toContain(
      "Initial request: add a --dry-run flag",
    );
    expect(matchCommand("/usr/bin/env", items)).toBeUndefined();
  });

  test("!`cmd` runs in a trusted project (arguments quoted for the shell); untrusted, it is left out in one line", async () => {
    write(join(ws.dir, ".claude/commands/greet.md"), "Output: !`echo hi-$ARGUMENTS`\nDone.\n");
    const [greet] = (await find()).items;
    const trusted = await expandCommand(greet, "there; touch PWNED", { cwd: ws.dir, shell: runner(true) });
    expect(trusted.text).toBe("Output: hi-there; touch PWNED\nDone.\n");
    expect(trusted.notices).toEqual([]);
    expect(existsSync(join(ws.dir, "PWNED"))).toBe(false);
    const untrusted = await expandCommand(greet, "x", { cwd: ws.dir, shell: runner(false) });
    expect(untrusted.text).toBe("Output: [not run: echo hi-'x']\nDone.\n");
    expect(untrusted.notices).toEqual([
      "ignoring the shell command `echo hi-'x'` in .claude/commands/greet.md: the project is not trusted (run with --trust).",
    ]);
    // The user's own commands are theirs: they run anywhere.
    write(join(ws.home, ".claude/commands/mine.md"), "!`echo from-home`\n");
    const mine = (await find()).items.find((c) => c.name === "mine")!;
    expect((await expandCommand(mine, "", { cwd: ws.dir, shell: runner(false) })).text).toBe("from-home\n");
  });

  test("@file includes the file; a loop of @ includes is one line and the session goes on", async () => {
    write(join(ws.dir, "notes/a.md"), "A says see @notes/b.md\n");
    write(join(ws.dir, "notes/b.md"), "B says see @notes/a.md\n");
    write(join(ws.dir, ".claude/commands/loop.md"), "Read @notes/a.md and @missing.md now.\n");
    const [loop] = (await find()).items;
    const { text, notices } = await expandCommand(loop, "", { cwd: ws.dir });
    expect(text).toContain('<file path="notes/a.md">\nA says see @notes/b.md\n</file>');
    expect(text).toContain('<file path="notes/b.md">\nB says see @notes/a.md\n</file>');
    expect(text.match(/<file path="notes\/a.md">/g)).toHaveLength(1);
    expect(notices).toEqual([
      ".claude/commands/loop.md: @ includes loop (notes/a.md → notes/b.md → notes/a.md); the repeated file is left out.",
    ]);
  });

  test("gemini-cli: {{args}}, @{file}, !{cmd} with args shell-quoted, and the call appended without {{args}}", async () => {
    cpSync(FIXTURE, ws.dir, { recursive: true });
    write(join(ws.dir, "README.md"), "readme text\n");
    write(
      join(ws.dir, ".gemini/commands/mix.toml"),
      "prompt = '''\nFile: @{README.md}\nRun: !{echo {{args}}}\nAsk: {{args}}\n'''\n",
    );
    write(join(ws.dir, ".gemini/commands/plain.toml"), 'prompt = "Summarize."\n');
    const items = (await find()).items;
    const docs = matchCommand("/find-docs where are the hooks?", items)!;
    expect((await expandCommand(docs.command, docs.args, { cwd: ws.dir })).text).toEndWith(
      "### QUESTION:\n\nwhere are the hooks?\n",
    );
    const mix = matchCommand("/mix a$(id)", items)!;
    expect((await expandCommand(mix.command, mix.args, { cwd: ws.dir, shell: runner(true) })).text).toBe(
      "File: readme text\n\nRun: a$(id)\nAsk: a$(id)\n",
    );
    const plain = matchCommand("/plain the diff", items)!;
    expect((await expandCommand(plain.command, plain.args, { cwd: ws.dir })).text).toBe(
      "Summarize.\n\n/plain the diff",
    );
  });

  test("bad command files are one line each naming the file; the others load", async () => {
    write(join(ws.dir, ".gemini/commands/broken.toml"), 'prompt = """never closed\n');
    write(join(ws.dir, ".gemini/commands/noprompt.toml"), 'description = "x"\n');
    write(join(ws.dir, ".claude/commands/badfront.md"), '---\ndescription: "never closed\n---\nbody\n');
    write(join(ws.dir, ".claude/commands/ok.md"), "fine\n");
    const { items, problems } = await find();
    expect(items.map((c) => c.name)).toEqual(["ok"]);
    expect(problems.sort()).toEqual([
      `${join(ws.dir, ".claude/commands/badfront.md")}: its frontmatter is not valid YAML (line 3): deficient indentation; command skipped.`,
      `${join(ws.dir, ".gemini/commands/broken.toml")}: is not valid TOML: the """ string of 'prompt' (line 1) is not closed; command skipped.`,
      `${join(ws.dir, ".gemini/commands/noprompt.toml")}: it has no 'prompt' string; command skipped.`,
    ]);
  });
});

describe("custom slash commands in the modes", () => {
  test('print mode: gong -p "/review src" sends the expansion; an untrusted project\'s shell part is one line on stderr', async () => {
    write(
      join(ws.dir, ".claude/commands/review.md"),
      "---\ndescription: Review a folder\nargument-hint: <dir>\n---\nReview the code in $1. Status: !`echo STATUS-OK`\n",
    );
    write(join(ws.dir, ".claude/skills/broken/SKILL.md"), "no frontmatter\n");
    const fake = await startFakeLlm({ script: [{ text: "reviewed" }, { text: "reviewed again" }] });
    const untrusted = await ws.run([...WIRE_APIS[0].flags(fake), "--no-session", "-p", "/review src"]);
    expect(untrusted.stdout).toBe("reviewed\n");
    expect(conversationOf(fake.requests[0]).firstUser).toBe(
      "Review the code in src. Status: [not run: echo STATUS-OK]\n",
    );
    expect(untrusted.stderr).toContain(
      "gong: ignoring the shell command `echo STATUS-OK` in .claude/commands/review.md: the project is not trusted (run with --trust",
    );
    expect(untrusted.stderr).toContain(
      `gong: warning: ${join(ws.dir, ".claude/skills/broken/SKILL.md")}: has no frontmatter`,
    );
    const trusted = await ws.run([...WIRE_APIS[0].flags(fake), "--no-session", "--trust", "-p", "/review src"]);
    expect(trusted.code).toBe(0);
    expect(conversationOf(fake.requests[1]).firstUser).toBe("Review the code in src. Status: STATUS-OK\n");
  });

  test("print mode: a command's model (sonnet) is used for its input", async () => {
    write(join(ws.dir, ".claude/commands/deep.md"), "---\nmodel: sonnet\n---\nThink hard about $ARGUMENTS.\n");
    const fake = await startFakeLlm({ script: [{ text: "thought" }] });
    const run = await ws.run([
      ...WIRE_APIS[0].flags(fake),
      "--no-session",
      "--output-format",
      "json",
      "-p",
      "/deep caching",
    ]);
    expect(run.code).toBe(0);
    expect(fake.requests[0].body.model).toBe("claude-sonnet-4-6");
    expect(JSON.parse(run.stdout).model).toBe("anthropic/claude-sonnet-4-6");
  });

  test("RPC: get_commands lists them and a prompt naming one sends its expansion", async () => {
    write(join(ws.dir, ".gong/commands/hello.md"), "---\ndescription: Greets\n---\nSay hello to $ARGUMENTS.\n");
    const fake = await startFakeLlm({ script: [{ text: "hello!" }] });
    const r = rpcProcess(ws, [...WIRE_APIS[0].flags(fake), "--no-session"]);
    r.send({ id: 1, type: "get_commands" });
    expect((await r.response(1)).data.commands).toEqual([
      {
        name: "hello",
        description: "Greets",
        argument_hint: null,
        scope: "project",
        file: join(ws.dir, ".gong/commands/hello.md"),
      },
    ]);
    r.send({ id: 2, type: "prompt", text: "/hello the team" });
    expect((await r.response(2)).data.text).toBe("hello!");
    expect(conversationOf(fake.requests[0]).firstUser).toBe("Say hello to the team.\n");
    await r.close();
  });

  test("ACP: available_commands_update names the commands; a prompt naming one sends its expansion", async () => {
    write(
      join(ws.dir, ".claude/commands/hello.md"),
      "---\ndescription: Greets\nargument-hint: <who>\n---\nSay hello to $ARGUMENTS.\n",
    );
    const fake = await startFakeLlm({ script: [{ text: "hello!" }] });
    await using e = await editor(ws, [
      "--mode",
      "acp",
      "--model",
      "ollama/qwen3-coder",
      "--base-url",
      fake.baseUrls.openai,
      "--approval",
      "auto",
    ]);
    const { sessionId } = await e.agent.request("session/new", { cwd: ws.dir, mcpServers: [] });
    await until(
      () => e.updates.some((u) => u.update.sessionUpdate === "available_commands_update"),
      "available_commands_update",
    );
    const update = e.updates.find((u) => u.update.sessionUpdate === "available_commands_update")!.update as any;
    expect(update.availableCommands).toEqual([{ name: "hello", description: "Greets", input: { hint: "<who>" } }]);
    await e.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "/hello the editor" }] });
    expect(conversationOf(fake.requests[0]).firstUser).toBe("Say hello to the editor.\n");
  });
});
