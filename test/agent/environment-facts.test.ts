/**
 * Issue 25, what the model is told about the machine: in a session whose PATH has sh and no bash,
 * rg, fd, python3 or node, the request's system prompt names sh and lists what is missing, and the
 * profile's shell tool says sh — over real HTTP through the official SDK to the fake server.
 */
import { expect, test } from "bun:test";
import { mkdirSync, symlinkSync } from "node:fs";
import { LocalEnvironment } from "../../lib/env/local.ts";
import { tempDir } from "../helpers/temp.ts";
import { harness } from "./harness.ts";

const SH = Bun.which("sh");

test.skipIf(!SH)("issue 25 the environment section and the Bash tool name sh and what is not installed", async () => {
  using bin = tempDir("gong-sh-only-");
  mkdirSync(bin.path("bin"));
  symlinkSync(SH!, bin.path("bin", "sh"));
  await using h = await harness([{ text: "ok" }], {
    profile: "anthropic",
    env: new LocalEnvironment({ root: bin.dir, baseEnv: { PATH: bin.path("bin") } }),
  });
  await h.session.submit("what can you run?");
  const body = h.fake.requests[0].body;
  const system = JSON.stringify(body.system);
  expect(system).toContain("Shell: sh (commands run with sh -c; bash-only syntax such as arrays or [[ ]] may fail)");
  expect(system).toContain("Programs on PATH: none of the usual ones; not installed: rg, fd, git, bash, python3, node");
  const bash = (body.tools as Array<{ name: string; description: string }>).find((t) => t.name === "Bash")!;
  expect(bash.description).toStartWith("Runs a sh command");
});
