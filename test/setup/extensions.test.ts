/**
 * gemini-cli extensions (issue 39): read from the user's and the project's .gemini/extensions as
 * gemini-cli reads them — context file (imports followed), excludeTools as deny rules, TOML
 * commands, skills, MCP servers with ${extensionPath} — and installed with gong's own command.
 * The fixtures are published extensions (test/fixtures/plugins/SOURCES).
 */
import { afterEach, describe, expect, test } from "bun:test";
import { cpSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, sep } from "node:path";
import { installExtension, uninstallExtension } from "../../lib/setup/plugins/extension-install.ts";
import { claudeRule, discoverExtensions } from "../../lib/setup/plugins/extensions.ts";
import { loadBundles, withBundles } from "../../lib/setup/plugins/index.ts";
import { PluginError } from "../../lib/setup/plugins/store.ts";
import { gitHost, hasGit, PLUGIN_FIXTURES } from "../helpers/git-host.ts";
import { tempDir, type TempDir } from "../helpers/temp.ts";

const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

function setup() {
  const temp: TempDir = tempDir("gong-extensions-");
  cleanups.push(temp.cleanup);
  const home = temp.path("home");
  const project = temp.path("project");
  mkdirSync(project, { recursive: true });
  return { temp, home, project };
}

/** Puts a published extension into an extensions folder, as gemini-cli's install leaves it. */
function place(extensions: string, fixture: string, name = fixture.split("/").at(-1)!): string {
  const dir = join(extensions, name);
  cpSync(join(PLUGIN_FIXTURES, fixture), dir, { recursive: true });
  return dir;
}

describe("gemini-cli extensions", () => {
  test("issue 39: superpowers' extension: its context file GEMINI.md with its two @imports, read as GEMINI.md", async () => {
    const { home, project } = setup();
    const dir = place(join(home, ".gemini/extensions"), "superpowers");
    const [extension] = await discoverExtensions(project, home);
    expect(extension).toMatchObject({
      name: "superpowers",
      version: "6.2.0",
      scope: "user",
      label: "superpowers (gemini extension)",
    });
    expect(extension.context).toHaveLength(1);
    const { content, readAs, path } = extension.context[0];
    expect([path, readAs]).toEqual([join(dir, "GEMINI.md"), "GEMINI.md"]);
    // The imports are in, in their place: the skill's text, then the tool mapping.
    expect(content).not.toContain("@./skills");
    expect(content).toStartWith(readFileSync(join(dir, "skills/using-superpowers/SKILL.md"), "utf8").trimEnd());
    expect(content).toContain(
      readFileSync(join(dir, "skills/using-superpowers/references/gemini-tools.md"), "utf8").trimEnd(),
    );
    expect(extension.problems).toEqual([]);
  });

  test("issue 39: gemini-cli's examples: commands/fs/grep-code.toml is /fs:grep-code; excludeTools run_shell_command(rm -rf) is a deny rule", async () => {
    const { home, project } = setup();
    place(join(project, ".gemini/extensions"), "gemini-cli-examples/custom-commands");
    place(join(home, ".gemini/extensions"), "gemini-cli-examples/exclude-tools");
    const extensions = await discoverExtensions(project, home);
    expect(extensions.map((e) => [e.name, e.scope])).toEqual([
      ["custom-commands", "project"],
      ["excludeTools", "user"],
    ]);
    const [commands, exclude] = extensions;
    expect(commands.commands.map((c) => [c.name, c.syntax, c.scope, c.plugin])).toEqual([
      ["fs:grep-code", "gemini", "project", "custom-commands (gemini extension)"],
    ]);
    expect(exclude.denyRules).toEqual(["Bash(rm -rf:*)"]);
  });

  test("issue 39: excludeTools entries as the rules of every profile", () => {
    expect(claudeRule("run_shell_command")).toBe("Bash");
    expect(claudeRule("run_shell_command(git push)")).toBe("Bash(git push:*)");
    expect(claudeRule("write_file")).toBe("Write");
    expect(claudeRule("replace")).toBe("Edit");
    expect(claudeRule("web_fetch")).toBe("WebFetch");
    expect(claudeRule("mcp__github__delete_repo")).toBe("mcp__github__delete_repo");
  });

  test("issue 39: MCP servers with ${extensionPath} and ${/}; a project's only in a trusted project", async () => {
    const { home, project } = setup();
    const dir = join(project, ".gemini/extensions/bus");
    mkdirSync(dir, { recursive: true });
    writeFileSync(
      join(dir, "gemini-extension.json"),
      JSON.stringify({
        name: "bus",
        mcpServers: { bus: { command: "node", args: ["${extensionPath}${/}server.mjs"], cwd: "${extensionPath}" } },
      }),
    );
    const load = (trusted: boolean) =>
      loadBundles({
        cwd: project,
        home,
        layers: [],
        trusted,
        untrustedHint: "the project is not trusted (run with --trust).",
      });
    const untrusted = await load(false);
    expect(untrusted.servers).toEqual([]);
    expect(untrusted.notices).toEqual([
      `ignoring the MCP servers bus of bus (gemini extension) in ${dir}: the project is not trusted (run with --trust).`,
    ]);
    const trusted = await load(true);
    expect(trusted.servers.map((s) => [s.name, s.entry])).toEqual([
      ["bus", { command: "node", args: [`${dir}${sep}server.mjs`], cwd: dir }],
    ]);
  });

  test("issue 39: an extension's command that another already names is /<extension>.<name>, as gemini-cli renames it", async () => {
    const { home, project } = setup();
    place(join(home, ".gemini/extensions"), "gemini-cli-examples/custom-commands");
    const bundles = await loadBundles({ cwd: project, home, layers: [], trusted: false, untrustedHint: "" });
    const own = {
      skills: [],
      agents: [],
      problems: [],
      commands: [
        { name: "fs:grep-code", template: "mine", syntax: "claude" as const, file: "/mine.md", scope: "user" as const },
      ],
    };
    expect(withBundles(own, bundles).commands.map((c) => [c.name, c.plugin])).toEqual([
      ["custom-commands.fs:grep-code", "custom-commands (gemini extension)"],
      ["fs:grep-code", undefined],
    ]);
  });

  test("issue 39 bad input: a gemini-extension.json that does not parse is one line, and the other extensions load", async () => {
    const { home, project } = setup();
    const extensions = join(home, ".gemini/extensions");
    place(extensions, "gemini-cli-examples/exclude-tools");
    mkdirSync(join(extensions, "broken"), { recursive: true });
    writeFileSync(join(extensions, "broken/gemini-extension.json"), "{ name: broken");
    const bundles = await loadBundles({ cwd: project, home, layers: [], trusted: true, untrustedHint: "" });
    expect(bundles.notices).toHaveLength(1);
    expect(bundles.notices[0]).toStartWith(
      `gemini extension ${join(extensions, "broken/gemini-extension.json")} is not valid JSON`,
    );
    expect(bundles.notices[0]).toEndWith("; it was not loaded.");
    expect(bundles.denyRules).toEqual([
      { rule: "Bash(rm -rf:*)", source: "excludeTools (gemini extension), excludeTools" },
    ]);
  });
});

describe("gong extensions install", () => {
  test("issue 39: from a folder, into ~/.gemini/extensions/<name> with gemini-cli's install record; twice is refused; uninstall removes it", async () => {
    const { home, project } = setup();
    const source = join(PLUGIN_FIXTURES, "superpowers");
    const installed = await installExtension(source, { cwd: project, home });
    const dest = join(home, ".gemini/extensions/superpowers");
    expect(installed.root).toBe(dest);
    expect(JSON.parse(readFileSync(join(dest, ".gemini-extension-install.json"), "utf8"))).toEqual({
      source,
      type: "local",
    });
    expect(existsSync(join(dest, "skills/brainstorming/SKILL.md"))).toBe(true);
    await expect(installExtension(source, { cwd: project, home })).rejects.toThrow(
      `an extension named 'superpowers' is already installed (${dest}); uninstall it first.`,
    );
    expect(uninstallExtension("superpowers", home)).toBe(dest);
    expect(existsSync(dest)).toBe(false);
    expect(() => uninstallExtension("superpowers", home)).toThrow(PluginError);
  });

  test.skipIf(!hasGit)("issue 39: from a git URL (a bare repository standing in for GitHub)", async () => {
    const { home, project } = setup();
    const host = gitHost();
    cleanups.push(host.cleanup);
    const url = host.publish("gemini-cli-examples/custom-commands", "google-gemini/custom-commands");
    const installed = await installExtension(url, { cwd: project, home });
    expect(installed.commands.map((c) => c.name)).toEqual(["fs:grep-code"]);
    expect(existsSync(join(installed.root, ".git"))).toBe(false);
    expect(JSON.parse(readFileSync(join(installed.root, ".gemini-extension-install.json"), "utf8"))).toEqual({
      source: url,
      type: "git",
    });
  });

  test("issue 39 bad input: a folder without gemini-extension.json, or with one that does not parse, installs nothing", async () => {
    const { temp, home, project } = setup();
    await expect(installExtension(join(PLUGIN_FIXTURES, "session-bus"), { cwd: project, home })).rejects.toThrow(
      `${join(PLUGIN_FIXTURES, "session-bus")} has no gemini-extension.json; nothing was installed.`,
    );
    const broken = temp.path("broken");
    mkdirSync(broken);
    writeFileSync(join(broken, "gemini-extension.json"), "[1,");
    await expect(installExtension(broken, { cwd: project, home })).rejects.toThrow("is not valid JSON");
    expect(existsSync(join(home, ".gemini/extensions"))).toBe(false);
  });
});
