/**
 * Issue 41, trajectories: `gong export SESSION --format atif|markdown|html|jsonl` on sessions the
 * real command wrote against the fake model. ATIF is validated by Harbor's own pydantic models
 * (test/fixtures/harbor, see SOURCE.md); the HTML page is opened in headless Chromium; a corrupt
 * session exports its readable entries and one line naming what was skipped.
 */
import { describe, expect, test } from "bun:test";
import { appendFileSync, existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { chromiumPath, NO_CHROMIUM, renderedDom } from "../helpers/chromium.ts";
import { fakeFlags, ROOT, startFakeLlm, useWorkspace } from "../cli/helpers.ts";
import { runSlashCommand, type SlashContext } from "../../lib/cli/slash-commands.ts";
import { SessionStore } from "../../lib/store/session-store.ts";

const ws = useWorkspace();
const VALIDATOR = join(ROOT, "test/fixtures/harbor/validate_atif.py");

/** python3 with pydantic 2, which Harbor's models need; the reason to skip otherwise. */
const pythonProblem = (() => {
  const probe = Bun.spawnSync(["python3", "-c", "import pydantic; assert pydantic.VERSION.startswith('2')"]);
  return probe.exitCode === 0 ? undefined : "python3 with pydantic 2 is not installed (Harbor's models need it)";
})();

const TRICKY = "Use `a` and ```b```; </pre><script>document.title='pwned'</script> & <b>bold</b>";

/** Two inputs: the first runs a command that succeeds and one that fails, the second answers with tricky text. */
async function storedSession(): Promise<{ file: string; id: string }> {
  const fake = await startFakeLlm({
    script: [
      {
        thinking: "Look first.",
        text: "Listing the files.",
        toolCalls: [{ name: "bash", arguments: { command: "echo listed" } }],
        usage: { input: 100, output: 20, cacheRead: 40, cacheWrite: 5 },
      },
      {
        toolCalls: [{ name: "bash", arguments: { command: "echo broken >&2; exit 3" } }],
        usage: { input: 130, output: 10 },
      },
      { text: "The second command failed with exit 3.", usage: { input: 160, output: 12 } },
      { text: TRICKY, usage: { input: 200, output: 30 } },
    ],
  });
  const flags = fakeFlags("anthropic/claude-haiku-4-5", fake.baseUrls.anthropic, "default");
  const first = await ws.run([...flags, "--name", "tour", "-p", "Run two commands"]);
  expect(first.code).toBe(0);
  const second = await ws.run([...flags, "-c", "-p", "Say something <tricky>"]);
  expect(second.code).toBe(0);
  const dir = join(ws.home, ".gong", "sessions");
  const [project] = readdirSync(dir);
  const [name] = readdirSync(join(dir, project)).filter((n) => n.endsWith(".jsonl"));
  return { file: join(dir, project, name), id: name.slice(name.indexOf("_") + 1, -".jsonl".length) };
}

function validate(...files: string[]): { steps: number; sources: string[]; tool_calls: number }[] {
  const r = Bun.spawnSync(["python3", VALIDATOR, ...files]);
  if (r.exitCode !== 0) throw new Error(`Harbor rejected the trajectory: ${r.stderr.toString()}`);
  return JSON.parse(r.stdout.toString());
}

describe("issue 41: gong export", () => {
  test.skipIf(pythonProblem !== undefined)(
    `ATIF: Harbor's Trajectory model accepts it; steps, tool results and token totals match the session${pythonProblem ? ` (skipped: ${pythonProblem})` : ""}`,
    async () => {
      const { file, id } = await storedSession();
      const byName = await ws.run(["export", "tour", "--format", "atif", "-o", "by-name.json"]);
      expect(byName.code).toBe(0);
      expect(byName.stderr).toBe(`gong: wrote ${join(ws.dir, "by-name.json")}\n`);
      const byId = await ws.run(["export", id.slice(0, 8), "--format", "atif"]);
      expect(byId.code).toBe(0);
      writeFileSync(join(ws.dir, "by-id.json"), byId.stdout);
      const byFile = await ws.run(["export", file, "--format", "atif", "-o", "by-file.json"]);
      expect(byFile.code).toBe(0);

      const [report] = validate(join(ws.dir, "by-name.json"), join(ws.dir, "by-id.json"), join(ws.dir, "by-file.json"));
      expect(report.sources).toEqual(["user", "agent", "agent", "agent", "user", "agent"]);
      expect(report.tool_calls).toBe(2);
      const trajectory = JSON.parse(readFileSync(join(ws.dir, "by-name.json"), "utf8"));
      expect(readFileSync(join(ws.dir, "by-file.json"), "utf8")).toBe(byId.stdout);
      expect(trajectory.session_id).toBe(id);
      expect(trajectory.agent.name).toBe("gong");
      expect(trajectory.agent.model_name).toBe("anthropic/claude-haiku-4-5");
      const [, listing, failing] = trajectory.steps;
      expect(listing.reasoning_content).toBe("Look first.");
      expect(listing.observation.results[0].content).toContain("listed");
      expect(listing.metrics).toMatchObject({ prompt_tokens: 145, completion_tokens: 20, cached_tokens: 40 });
      expect(failing.observation.results[0]).toMatchObject({
        source_call_id: failing.tool_calls[0].tool_call_id,
        extra: { is_error: true },
      });
      expect(trajectory.final_metrics).toMatchObject({
        total_prompt_tokens: 145 + 130 + 160 + 200,
        total_completion_tokens: 72,
        total_cached_tokens: 40,
        total_steps: 6,
      });
      expect(trajectory.steps.at(-1).message).toBe(TRICKY);
    },
    60_000,
  );

  test.skipIf(!chromiumPath)(
    `HTML: one self-contained file that headless Chromium opens offline, showing every turn as text${chromiumPath ? "" : ` (skipped: ${NO_CHROMIUM})`}`,
    async () => {
      await storedSession();
      const r = await ws.run(["export", "--format", "html", "-o", "page.html"]);
      expect(r.code).toBe(0);
      const page = readFileSync(join(ws.dir, "page.html"), "utf8");
      // Nothing to fetch: no external address, no script, every load forbidden by its policy.
      expect(page).not.toMatch(/(src|href)=|https?:\/\/|<script/i);
      expect(page).toContain(`content="default-src 'none'; style-src 'unsafe-inline'"`);
      const dom = await renderedDom(join(ws.dir, "page.html"));
      const turns = [...dom.matchAll(/<section class="turn (\w+)" id="turn-(\d+)"/g)].map((m) => m[1]);
      expect(turns).toEqual(["user", "agent", "agent", "agent", "user", "agent"]);
      expect(dom).not.toContain("<script");
      expect(dom).toContain("<title>tour — gong session");
      expect(dom).toContain("Run two commands");
      expect(dom).toContain("Say something &lt;tricky&gt;");
      expect(dom).toContain(
        "&lt;/pre&gt;&lt;script&gt;document.title='pwned'&lt;/script&gt; &amp; &lt;b&gt;bold&lt;/b&gt;",
      );
      expect(dom).toContain("echo broken &gt;&amp;2; exit 3");
    },
    60_000,
  );

  test("markdown: every turn, the calls with their arguments and output, fences that survive backticks", async () => {
    await storedSession();
    const r = await ws.run(["export", "--format", "markdown"]);
    expect(r.code).toBe(0);
    const md = r.stdout;
    expect(md.match(/^## (User|Agent)/gm)).toEqual([
      "## User",
      "## Agent",
      "## Agent",
      "## Agent",
      "## User",
      "## Agent",
    ]);
    expect(md).toContain("# tour — gong session");
    expect(md).toContain("> Look first.");
    expect(md).toContain('**Tool call** `bash {"command":"echo listed"}`');
    expect(md).toContain("**Error**");
    expect(md).toContain(TRICKY);
    expect(md).toContain("anthropic/claude-haiku-4-5 · 145 in (40 cached), 20 out");
  }, 60_000);

  test("jsonl: the session's own lines, byte for byte", async () => {
    const { file } = await storedSession();
    const r = await ws.run(["export", "tour", "--format", "jsonl"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(readFileSync(file, "utf8"));
  }, 60_000);

  test("bad input: a corrupt session exports its readable entries and one line naming what was skipped", async () => {
    const { file } = await storedSession();
    const lines = readFileSync(file, "utf8").split("\n");
    // A garbage line after the second entry, and a torn last line (a write cut short).
    lines.splice(3, 0, '{"type":"message","id":"zz', "not json at all");
    writeFileSync(file, lines.join("\n"));
    appendFileSync(file, '{"type":"message","id":"torn0001","parentId":null,"timestamp":"2026');
    for (const format of ["atif", "markdown", "html", "jsonl"]) {
      const r = await ws.run(["export", "tour", "--format", format, "-o", `out.${format}`]);
      expect(r.code).toBe(0);
      const warnings = r.stderr.split("\n").filter((l) => l.startsWith("gong: warning:"));
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toContain(`skipped what could not be read in ${file}`);
      expect(warnings[0]).toContain("line 4: corrupt entry skipped");
      expect(warnings[0]).toContain("line 5: corrupt entry skipped");
      expect(warnings[0]).toContain("torn last line skipped");
      expect(readFileSync(join(ws.dir, `out.${format}`), "utf8")).toContain("Say something <tricky>".slice(0, 13));
    }
    if (!pythonProblem) validate(join(ws.dir, "out.atif"));
    expect(readFileSync(join(ws.dir, "out.jsonl"), "utf8")).not.toContain("not json at all");
  }, 60_000);

  test("bad input: an unknown format, a missing session, an empty one: exit 2, one sentence, no file written", async () => {
    await storedSession();
    const format = await ws.run(["export", "tour", "--format", "pdf", "-o", "x.pdf"]);
    expect(format.code).toBe(2);
    expect(format.stderr).toBe("gong: gong export needs --format atif, markdown, html, jsonl (got 'pdf').\n");
    const missing = await ws.run(["export", "nosuch", "--format", "atif"]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("No session 'nosuch'");
    const empty = join(ws.dir, "empty.jsonl");
    writeFileSync(
      empty,
      `${JSON.stringify({ type: "session", version: 1, id: "e0", timestamp: "2026-01-01T00:00:00Z", cwd: ws.dir })}\n`,
    );
    const nothing = await ws.run(["export", empty, "--format", "atif", "-o", "empty.json"]);
    expect(nothing.code).toBe(2);
    expect(nothing.stderr).toBe("gong: Session e0 has no conversation to export as ATIF.\n");
    expect(existsSync(join(ws.dir, "empty.json"))).toBe(false);
    expect(readdirSync(ws.dir).filter((n) => n.includes(".gong-"))).toEqual([]);
    const nowhere = await ws.run(["export", "tour", "--format", "atif", "-o", "no/such/dir/x.json"]);
    expect(nowhere.code).toBe(2);
    expect(nowhere.stderr).toBe(
      `gong: Cannot write ${join(ws.dir, "no/such/dir/x.json")}: its folder does not exist.\n`,
    );
    const stray = await ws.run(["--format", "atif", "-p", "hi"]);
    expect(stray.code).toBe(2);
    expect(stray.stderr).toBe("gong: --format and --output belong to 'gong export'.\n");
  }, 60_000);

  test("/export in the shell writes the same export as gong export (markdown by default)", async () => {
    const { file, id } = await storedSession();
    const store = SessionStore.open(file, { lock: false });
    let said = "";
    const ctx = {
      host: { sessionStore: store, setup: { cwd: ws.dir } },
      out: (s: string) => void (said += s),
    } as unknown as SlashContext;
    try {
      await runSlashCommand("/export", ctx);
      const md = join(ws.dir, `gong-${id.slice(0, 8)}.md`);
      expect(said).toBe(`wrote ${md}\n`);
      said = "";
      await runSlashCommand("/export html page.html", ctx);
      expect(said).toBe(`wrote ${join(ws.dir, "page.html")}\n`);
      said = "";
      await runSlashCommand("/export html a b", ctx);
      expect(said).toBe("usage: /export [atif|markdown|html|jsonl] [FILE]\n");
      const cli = await ws.run(["export", id, "--format", "markdown"]);
      expect(readFileSync(md, "utf8")).toBe(cli.stdout);
      const page = await ws.run(["export", id, "--format", "html"]);
      expect(readFileSync(join(ws.dir, "page.html"), "utf8")).toBe(page.stdout);
    } finally {
      store.close();
    }
  }, 60_000);
});
