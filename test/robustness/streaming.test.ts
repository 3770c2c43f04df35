/**
 * Streamed output stays proportional to what the model sent: tool_call_update carries each piece
 * of the arguments (with a parsed snapshot only now and then), and message_update lines carry the
 * piece, not the whole answer so far.
 */
import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { startFakeLlm, useWorkspace, WIRE_APIS } from "../cli/helpers.ts";

const ws = useWorkspace();

test("stream-json of a 100 KB streamed write stays proportional to its arguments", async () => {
  const content = "x".repeat(100_000);
  const fake = await startFakeLlm({
    script: [{ toolCalls: [{ name: "write", arguments: { path: "big.txt", content } }], chunkSize: 20 }, { text: "y".repeat(20_000), chunkSize: 20 }],
  });
  const r = await ws.run([...WIRE_APIS[0].flags(fake), "-p", "write it", "--output-format", "stream-json"]);
  expect(r.code).toBe(0);
  expect(readFileSync(join(ws.dir, "big.txt"), "utf8")).toBe(content);
  // Before, every update repeated all arguments so far: 251 MB for this input.
  expect(r.stdout.length).toBeLessThan(20 * 120_000);
  const events = r.stdout.trim().split("\n").map((l) => JSON.parse(l));
  const updates = events.filter((e) => e.kind === "tool_call_update");
  const pieces = updates.map((e) => e.data.delta ?? "").join("");
  expect(JSON.parse(pieces)).toEqual({ path: "big.txt", content });
  const snapshots = updates.filter((e) => e.data.arguments !== undefined);
  expect(snapshots.length).toBeLessThan(updates.length / 10);
  expect(updates.at(-1).data).toMatchObject({ complete: true, arguments: { path: "big.txt", content } });
  const textUpdates = events.filter((e) => e.kind === "message_update");
  expect(textUpdates.length).toBeGreaterThan(100);
  expect(textUpdates.every((e) => e.data.message === undefined && typeof e.data.delta === "string")).toBe(true);
});
