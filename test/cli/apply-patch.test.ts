/** `gong --tools default,apply_patch` edits a file with a patch, on the Responses API and on Chat Completions. */
import { expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startFakeLlm, useWorkspace, WIRE_APIS } from "./helpers.ts";

const ws = useWorkspace();
const PATCH = "*** Begin Patch\n*** Update File: app.py\n@@ def main():\n-    return 0\n+    return 1\n*** End Patch";

for (const api of WIRE_APIS.filter((a) => a.name.startsWith("openai"))) {
  test(`cli --tools default,apply_patch applies a patch the model sends (${api.name})`, async () => {
    writeFileSync(join(ws.dir, "app.py"), "def main():\n    return 0\n");
    const fake = await startFakeLlm({
      script: [{ toolCalls: [{ name: "apply_patch", arguments: { input: PATCH } }] }, { text: "Patched." }],
    });
    const r = await ws.run([...api.flags(fake), "--tools", "default,apply_patch", "-p", "make main return 1"]);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("Patched.\n");
    expect(readFileSync(join(ws.dir, "app.py"), "utf8")).toBe("def main():\n    return 1\n");
    const tools = fake.requests[0].body.tools as any[];
    const declared = tools.find((t) => (t.name ?? t.function?.name) === "apply_patch");
    expect(declared.type).toBe(api.name === "openai-responses" ? "custom" : "function");
    expect(JSON.stringify(fake.requests[1].body)).toContain("M app.py (+1 -1)");
  }, 30_000);
}
