/** Configuration errors are exit 2 with one sentence naming the flag, or the file and key. */
import { describe, expect, test } from "bun:test";
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startFakeLlm, useWorkspace, WIRE_APIS } from "../cli/helpers.ts";

const ws = useWorkspace();
const oneLine = (stderr: string) => {
  const lines = stderr.trim().split("\n");
  expect(lines.length).toBe(1);
  return lines[0];
};

describe("configuration errors: exit 2, one sentence", () => {
  test("--tools nonsense names the flag", async () => {
    const fake = await startFakeLlm({ script: [{ text: "x" }] });
    const r = await ws.run([...WIRE_APIS[0].flags(fake), "--tools", "nonsense", "-p", "hi"]);
    expect(r.code).toBe(2);
    expect(oneLine(r.stderr)).toStartWith(
      "gong: Invalid --tools: unknown tool 'nonsense'; available tools: read, write, edit, bash, grep, find, ls",
    );
  }, 30_000);

  test('"tools" in settings names the file and the key', async () => {
    const fake = await startFakeLlm({ script: [{ text: "x" }] });
    mkdirSync(join(ws.dir, ".gong"));
    writeFileSync(join(ws.dir, ".gong", "settings.json"), JSON.stringify({ tools: "nonsense" }));
    const r = await ws.run([...WIRE_APIS[0].flags(fake), "-p", "hi"]);
    expect(r.code).toBe(2);
    expect(oneLine(r.stderr)).toContain(
      `Invalid "tools" in ${join(ws.dir, ".gong", "settings.json")}: unknown tool 'nonsense'; available tools:`,
    );
  }, 30_000);

  test("--max-turns -1 is one sentence naming the flag", async () => {
    const r = await ws.run(["--max-turns", "-1", "-m", "fake/demo", "-p", "hi"]);
    expect(r.code).toBe(2);
    expect(oneLine(r.stderr)).toBe("gong: --max-turns must be a positive integer (got '-1').");
  }, 30_000);

  test("a session file from a newer gong is exit 2 with -c and with -r", async () => {
    const fake = await startFakeLlm({ script: [{ text: "x" }] });
    const flags = WIRE_APIS[0].flags(fake);
    expect((await ws.run([...flags, "-p", "first"])).code).toBe(0);
    const root = join(ws.home, ".gong", "sessions");
    const dir = join(root, readdirSync(root)[0]);
    const path = join(dir, readdirSync(dir).find((f) => f.endsWith(".jsonl"))!);
    const [header, ...rest] = readFileSync(path, "utf8").split("\n");
    writeFileSync(path, [JSON.stringify({ ...JSON.parse(header), version: 99 }), ...rest].join("\n"));
    for (const args of [["-c"], ["-r", path]]) {
      const r = await ws.run([...flags, ...args, "-p", "again"]);
      expect(r.code).toBe(2);
      expect(oneLine(r.stderr)).toContain("was written by a newer gong (session version 99");
    }
  }, 30_000);
});

describe("input caps", () => {
  const capped = () => {
    mkdirSync(join(ws.dir, ".gong"), { recursive: true });
    writeFileSync(join(ws.dir, ".gong", "settings.json"), JSON.stringify({ maxInputBytes: 1024 }));
  };

  test("a prompt on stdin past the limit is one line and exit 2; nothing is sent", async () => {
    capped();
    const fake = await startFakeLlm({ script: [{ text: "x" }] });
    const r = await ws.run([...WIRE_APIS[0].flags(fake), "-p", "summarise"], { stdin: "z".repeat(4096) });
    expect(r.code).toBe(2);
    expect(oneLine(r.stderr)).toBe(
      'gong: The prompt on stdin is larger than the 1 KB input limit ("maxInputBytes" in settings); give the model a file path to read instead.',
    );
    expect(fake.requests.length).toBe(0);
  }, 30_000);

  test("an @file past the limit is one line and exit 2", async () => {
    capped();
    writeFileSync(join(ws.dir, "big.txt"), "z".repeat(4096));
    const fake = await startFakeLlm({ script: [{ text: "x" }] });
    const r = await ws.run([...WIRE_APIS[0].flags(fake), "-p", "summarise", "@big.txt"]);
    expect(r.code).toBe(2);
    expect(oneLine(r.stderr)).toContain("@big.txt is larger than the");
    expect(fake.requests.length).toBe(0);
  }, 30_000);

  test("an endless stdin (/dev/zero) stops at the default 32 MB limit", async () => {
    const fake = await startFakeLlm({ script: [{ text: "x" }] });
    const proc = Bun.spawn(
      [
        "bash",
        "-c",
        `exec "$0" "$@" </dev/zero`,
        process.execPath,
        join(import.meta.dir, "../../cli.ts"),
        ...WIRE_APIS[0].flags(fake),
        "-p",
        "x",
      ],
      {
        cwd: ws.dir,
        env: ws.env,
        stdout: "pipe",
        stderr: "pipe",
      },
    );
    const [stderr, code] = await Promise.all([new Response(proc.stderr).text(), proc.exited]);
    expect(code).toBe(2);
    expect(oneLine(stderr)).toContain("The prompt on stdin is larger than the 32 MB input limit");
  }, 30_000);
});
