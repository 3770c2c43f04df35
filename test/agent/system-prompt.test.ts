import { describe, expect, test } from "bun:test";
import { execFileSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { discoverProjectDocs, gitSnapshot, PROJECT_DOC_MARKER } from "../../lib/agent/index.ts";
import { createDefaultProfile, registerProfile } from "../../lib/profiles/index.ts";
import { tempDir } from "../helpers/temp.ts";
import { harness } from "./harness.ts";

const hasGit = (() => {
  try {
    execFileSync("git", ["--version"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
})();

function git(cwd: string, ...args: string[]): void {
  execFileSync(
    "git",
    ["-c", "user.name=gong-test", "-c", "user.email=test@example.com", "-c", "commit.gpgsign=false", ...args],
    { cwd, stdio: "ignore" },
  );
}

describe("004 §6 system prompt", () => {
  test("004-9.8 layers in order: base, environment, tools, project docs, user override last", async () => {
    using temp = tempDir("gong-prompt-");
    const dir = temp.dir;
    writeFileSync(join(dir, "AGENTS.md"), "PROJECT-RULE: use tabs.\n");
    await using h = await harness([{ text: "ok" }], {
      cwd: dir,
      appendSystemPrompt: "USER-OVERRIDE: answer in French.",
    });
    await h.session.submit("hi");
    const system = h.fake.requests[0].body.system!;
    const at = (s: string) => system.indexOf(s);
    expect(at("You are gong")).toBe(0);
    expect(at("<environment>")).toBeGreaterThan(at("You are gong"));
    expect(at("Available tools:")).toBeGreaterThan(at("<environment>"));
    expect(at("PROJECT-RULE")).toBeGreaterThan(at("Available tools:"));
    expect(at("USER-OVERRIDE")).toBeGreaterThan(at("PROJECT-RULE"));
    expect(system.trimEnd().endsWith("USER-OVERRIDE: answer in French.")).toBe(true);
  });

  test("004-9.8 systemPrompt replaces the base instructions and keeps the other layers", async () => {
    await using h = await harness([{ text: "ok" }], { systemPrompt: "You are a terse reviewer." });
    const prompt = h.session.systemPrompt();
    expect(prompt.startsWith("You are a terse reviewer.")).toBe(true);
    expect(prompt).not.toContain("You are gong");
    expect(prompt).toContain("<environment>");
    expect(prompt).toContain("- read:");
  });

  test("004 6.3 the environment block names directory, platform, date, model and cutoff", async () => {
    await using h = await harness([{ text: "ok" }]);
    const prompt = h.session.systemPrompt();
    expect(prompt).toContain(`Working directory: ${h.dir}`);
    expect(prompt).toContain("Is git repository: false");
    expect(prompt).toContain(`Platform: ${process.platform}`);
    expect(prompt).toMatch(/Today's date: \d{4}-\d{2}-\d{2}/);
    expect(prompt).toContain("Model: Claude Sonnet 4.5 (anthropic/claude-sonnet-4-5)");
    expect(prompt).toContain("Knowledge cutoff: 2025-01");
    expect(prompt).toMatch(/OS version: \S+/);
  });

  test.skipIf(!hasGit)("004 6.4 git snapshot: branch, change counts and recent commit subjects", async () => {
    using temp = tempDir("gong-prompt-");
    const dir = temp.dir;
    git(dir, "init", "-q", "-b", "trunk");
    writeFileSync(join(dir, "a.txt"), "1\n");
    git(dir, "add", ".");
    git(dir, "commit", "-q", "-m", "first subject");
    writeFileSync(join(dir, "a.txt"), "2\n");
    git(dir, "commit", "-q", "-am", "second subject");
    writeFileSync(join(dir, "a.txt"), "3\n");
    writeFileSync(join(dir, "new.txt"), "x\n");
    const snap = await gitSnapshot(dir);
    expect(snap).toMatchObject({
      isRepo: true,
      branch: "trunk",
      modified: 1,
      untracked: 1,
      recentCommits: ["second subject", "first subject"],
    });
    await using h = await harness([{ text: "ok" }], { cwd: dir });
    const prompt = h.session.systemPrompt();
    expect(prompt).toContain("Is git repository: true");
    expect(prompt).toContain("Git branch: trunk");
    expect(prompt).toContain("Changes: 1 modified, 1 untracked");
    expect(prompt).toContain("- second subject");
  });

  test("004 6.4 outside a repository the snapshot says so without failing", async () => {
    using temp = tempDir("gong-prompt-");
    expect(await gitSnapshot(temp.dir)).toEqual({ isRepo: false, modified: 0, untracked: 0, recentCommits: [] });
  });
});

describe("004 §6.5 project docs", () => {
  test.skipIf(!hasGit)(
    "004-9.8 docs from the repository root down to cwd, root first; profile files only for their profile",
    async () => {
      using temp = tempDir("gong-prompt-");
      const root = temp.dir;
      git(root, "init", "-q");
      const sub = join(root, "packages", "app");
      mkdirSync(sub, { recursive: true });
      writeFileSync(join(root, "AGENTS.md"), "ROOT-AGENTS\n");
      writeFileSync(join(root, "CLAUDE.md"), "ROOT-CLAUDE\n");
      writeFileSync(join(root, "GEMINI.md"), "ROOT-GEMINI\n");
      writeFileSync(join(root, "packages", "AGENTS.md"), "MIDDLE-AGENTS\n");
      writeFileSync(join(sub, "AGENTS.md"), "DEEP-AGENTS\n");

      const plain = await discoverProjectDocs(sub, { gitRoot: root });
      expect(plain.map((d) => d.content.trim())).toEqual(["ROOT-AGENTS", "MIDDLE-AGENTS", "DEEP-AGENTS"]);

      const claude = await discoverProjectDocs(sub, { gitRoot: root, files: ["CLAUDE.md"] });
      expect(claude.map((d) => d.content.trim())).toEqual([
        "ROOT-AGENTS",
        "ROOT-CLAUDE",
        "MIDDLE-AGENTS",
        "DEEP-AGENTS",
      ]);

      mkdirSync(join(sub, ".codex"));
      writeFileSync(join(sub, ".codex", "instructions.md"), "DEEP-CODEX\n");
      expect((await discoverProjectDocs(sub, { gitRoot: root })).map((d) => d.content.trim())).not.toContain(
        "DEEP-CODEX",
      );
      const codex = await discoverProjectDocs(sub, { gitRoot: root, files: [".codex/instructions.md"] });
      expect(codex.map((d) => d.content.trim())).toEqual(["ROOT-AGENTS", "MIDDLE-AGENTS", "DEEP-AGENTS", "DEEP-CODEX"]);

      await using h = await harness([{ text: "ok" }], { cwd: sub });
      const prompt = h.session.systemPrompt();
      expect(prompt.indexOf("ROOT-AGENTS")).toBeLessThan(prompt.indexOf("DEEP-AGENTS"));
      expect(prompt).not.toContain("ROOT-CLAUDE");
      expect(prompt).not.toContain("ROOT-GEMINI");
      const claudeProfile = (o: Parameters<typeof createDefaultProfile>[0]) => ({
        ...createDefaultProfile(o),
        id: "claude-like",
        projectDocFiles: ["CLAUDE.md"],
      });
      await using h2 = await harness([{ text: "ok" }], { cwd: sub, profile: claudeProfile });
      const claudePrompt = h2.session.systemPrompt();
      expect(claudePrompt).toContain("ROOT-CLAUDE");
      expect(claudePrompt).not.toContain("ROOT-GEMINI");
    },
  );

  test("004 6.5 a profile registered with registerProfile reads its own files after setProfile", async () => {
    const teamProfile = (o: Parameters<typeof createDefaultProfile>[0]) => ({
      ...createDefaultProfile(o),
      id: "team-docs",
      projectDocFiles: ["TEAM.md"],
    });
    registerProfile("team-docs", teamProfile);
    using temp = tempDir("gong-prompt-");
    writeFileSync(join(temp.dir, "TEAM.md"), "TEAM-RULES\n");
    await using h = await harness([{ text: "ok" }], { cwd: temp.dir });
    expect(h.session.systemPrompt()).not.toContain("TEAM-RULES");
    h.session.setProfile("team-docs");
    expect(h.session.systemPrompt()).toContain("TEAM-RULES");
  });

  test("004 6.5 outside a repository only the working directory is read", async () => {
    using temp = tempDir("gong-prompt-");
    const parent = temp.dir;
    const cwd = join(parent, "work");
    mkdirSync(cwd);
    writeFileSync(join(parent, "AGENTS.md"), "PARENT\n");
    writeFileSync(join(cwd, "AGENTS.md"), "HERE\n");
    const docs = await discoverProjectDocs(cwd);
    expect(docs.map((d) => d.content.trim())).toEqual(["HERE"]);
  });

  test("004 6.5 the 32KB budget cuts with the marker", async () => {
    using temp = tempDir("gong-prompt-");
    const dir = temp.dir;
    const sub = join(dir, "deep");
    mkdirSync(sub);
    writeFileSync(join(dir, "AGENTS.md"), `${"r".repeat(20_000)}\n`);
    writeFileSync(join(sub, "AGENTS.md"), `${"é".repeat(10_000)}\n`);
    const docs = await discoverProjectDocs(sub, { gitRoot: dir });
    expect(docs).toHaveLength(2);
    expect(docs[0].truncated).toBe(false);
    expect(docs[1].truncated).toBe(true);
    expect(docs[1].content.endsWith(PROJECT_DOC_MARKER)).toBe(true);
    // The budget is used up to the last whole character: 20,001 bytes + 6,383 two-byte "é" = 32,767 bytes.
    expect(docs[0].content).toBe(`${"r".repeat(20_000)}\n`);
    expect(docs[1].content).toBe(`${"é".repeat(6_383)}\n${PROJECT_DOC_MARKER}`);
    const body = docs.map((d) => d.content.replace(`\n${PROJECT_DOC_MARKER}`, "")).join("");
    expect(Buffer.byteLength(body)).toBe(32 * 1024 - 1);

    // A file past the exhausted budget is not taken at all.
    const deeper = join(sub, "deeper");
    mkdirSync(deeper);
    writeFileSync(join(deeper, "AGENTS.md"), "NEVER-SEEN\n");
    expect((await discoverProjectDocs(deeper, { gitRoot: dir })).map((d) => d.truncated)).toEqual([false, true]);
  });

  test.skipIf(!hasGit)("004-9.8 the system prompt carries the docs cut at the budget with the marker", async () => {
    using temp = tempDir("gong-prompt-");
    const root = temp.dir;
    git(root, "init", "-q");
    const sub = join(root, "sub");
    mkdirSync(sub);
    writeFileSync(join(root, "AGENTS.md"), `ROOT-START ${"r".repeat(40_000)}\n`);
    writeFileSync(join(sub, "AGENTS.md"), "NEVER-SEEN\n");
    await using h = await harness([{ text: "ok" }], { cwd: sub });
    await h.session.submit("hi");
    const system = JSON.stringify(h.fake.requests[0].body.system);
    expect(system).toContain("ROOT-START");
    expect(system).toContain(PROJECT_DOC_MARKER);
    expect(system).not.toContain("NEVER-SEEN");
    expect(system.length).toBeLessThan(40_000);
  });
});
