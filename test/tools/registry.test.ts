import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import * as v from "valibot";
import { envelopeProblems, type ToolResponse } from "../../lib/envelope.ts";
import { coreTools, createToolRegistry, TOOL_PRESETS } from "../../tools/registry.ts";
import type { Tool } from "../../tools/types.ts";
import { tempDir } from "../helpers/temp.ts";
import { createWorkspace, type Workspace } from "../helpers/workspace.ts";

let ws: Workspace;
beforeAll(() => {
  ws = createWorkspace("gong-registry-");
});
afterAll(() => ws.dispose());

const make = (preset?: Parameters<typeof createToolRegistry>[0]["preset"]) =>
  createToolRegistry({ cwd: ws.root, env: ws.env, preset });

function customTool(name: string, run: Tool["run"]): Tool {
  return {
    name,
    description: `custom ${name}`,
    schema: v.strictObject({ x: v.optional(v.pipe(v.string(), v.description("an x"))) }),
    truncation: "head",
    run,
  };
}

describe("TOOLCFG presets", () => {
  test("TOOLCFG-001 default activates all seven tools", () => {
    expect(make().names()).toEqual(["read", "write", "edit", "bash", "grep", "find", "ls"]);
    expect(coreTools.map((t) => t.name)).toEqual([...TOOL_PRESETS.default]);
  });

  test("TOOLCFG-002 the minimal preset is read, write, edit and bash", () => {
    expect(make("minimal").names()).toEqual(["read", "write", "edit", "bash"]);
  });

  test("TOOLCFG-003 the readonly preset has no writing tools, and calling one is NOT_FOUND", async () => {
    const registry = make("readonly");
    expect(registry.names()).toEqual(["read", "grep", "find", "ls"]);
    const r = await registry.execute("write", { path: "x.txt", content: "x" });
    expect(r.error).toEqual({
      code: "NOT_FOUND",
      message: "Unknown tool 'write'. Available tools: read, grep, find, ls.",
    });
  });

  test("TOOLCFG-004 runtime switch takes effect at once", async () => {
    const registry = make();
    registry.setActive("minimal");
    expect(registry.definitions().map((d) => d.name)).toEqual(["read", "write", "edit", "bash"]);
    expect((await registry.execute("ls", {})).error?.code).toBe("NOT_FOUND");
    registry.setActive(["ls", "read"]);
    expect(registry.names()).toEqual(["ls", "read"]);
    expect((await registry.execute("ls", {})).status).toBe("success");
  });

  test("TOOLCFG-005 invalid tool names rejected", () => {
    expect(() => make(["nonexistent"])).toThrow(
      "Unknown tool 'nonexistent'. Available tools: read, write, edit, bash, grep, find, ls, apply_patch.",
    );
    const registry = make();
    expect(() => registry.setActive(["read", "nope"])).toThrow("Unknown tool 'nope'");
    expect(() => registry.setActive("everything" as "default")).toThrow("Unknown tool preset 'everything'");
    expect(registry.names()).toHaveLength(7);
  });

  test("TOOLCFG-006 an empty tool list is refused and the active set stays", () => {
    expect(() => make([])).toThrow("The active tool list is empty");
    const registry = make("minimal");
    expect(() => registry.setActive([])).toThrow("The active tool list is empty");
    expect(registry.names()).toEqual(["read", "write", "edit", "bash"]);
  });

  test("preset from config, options preset wins", () => {
    expect(createToolRegistry({ cwd: ws.root, env: ws.env, config: { preset: "readonly" } }).names()).toHaveLength(4);
    expect(createToolRegistry({ cwd: ws.root, env: ws.env, config: { active: ["read"] } }).names()).toEqual(["read"]);
    expect(
      createToolRegistry({ cwd: ws.root, env: ws.env, preset: "minimal", config: { preset: "readonly" } }).names(),
    ).toContain("bash");
  });
});

describe("definitions", () => {
  test("JSON Schema with root object and descriptions", () => {
    const defs = make().definitions();
    for (const d of defs) {
      expect(d.parameters.type).toBe("object");
      expect(d.parameters.$schema).toBeUndefined();
      expect(d.description.length).toBeGreaterThan(20);
      for (const prop of Object.values(d.parameters.properties as Record<string, { description?: string }>))
        expect(prop.description).toBeTruthy();
    }
    const read = defs.find((d) => d.name === "read");
    expect(read?.parameters).toMatchObject({
      required: ["path"],
      properties: {
        start_line: { type: "integer", minimum: 1 },
        limit: { type: "integer", minimum: 1, maximum: 2000 },
      },
    });
    const edit = defs.find((d) => d.name === "edit");
    expect(edit?.parameters.required).toEqual(["path", "old_text", "new_text"]);
  });
});

describe("execute", () => {
  test("registry validation messages name the field", async () => {
    const registry = make();
    const cases: Array<[unknown, string]> = [
      [null, "Invalid arguments for read: arguments must be a JSON object (got null)."],
      [[1], "Invalid arguments for read: arguments must be a JSON object (got array)."],
      ["a.txt", "Invalid arguments for read: arguments must be a JSON object (got string)."],
      [{ path: "a", foo: 1 }, "Invalid arguments for read: unknown argument 'foo' (allowed: path, start_line, limit)."],
      [{ path: "a", limit: "5" }, "Invalid arguments for read: 'limit' must be a number (got string)."],
    ];
    for (const [args, message] of cases) {
      const r = await registry.execute("read", args);
      expect(envelopeProblems(r)).toEqual([]);
      expect(r.error).toEqual({ code: "INVALID_PARAM", message });
      expect(r.context.params_input).toEqual(args);
    }
  });

  test("unknown tool is an error envelope naming the tools", async () => {
    const r = await make().execute("teleport", {});
    expect(envelopeProblems(r)).toEqual([]);
    expect(r.error?.message).toBe("Unknown tool 'teleport'. Available tools: read, write, edit, bash, grep, find, ls.");
  });

  test("a tool that throws becomes INTERNAL_ERROR", async () => {
    const registry = make();
    registry.register(
      customTool("boom", async () => {
        throw new Error("kaput");
      }),
    );
    const r = await registry.execute("boom", {});
    expect(envelopeProblems(r)).toEqual([]);
    expect(r.error).toEqual({ code: "INTERNAL_ERROR", message: "Internal error: kaput" });
  });

  test("a tool returning a malformed result becomes INTERNAL_ERROR", async () => {
    const registry = make();
    registry.register(customTool("sloppy", async () => ({ status: "ok" }) as unknown as ToolResponse));
    const r = await registry.execute("sloppy", {});
    expect(r.error?.code).toBe("INTERNAL_ERROR");
    expect(r.error?.message).toContain("malformed result");
  });

  test("a later registration of a name wins; unregister removes it", async () => {
    const registry = make();
    registry.register(customTool("read", async (_args, ctx) => ctx.reply.success({}, "custom read")));
    expect((await registry.execute("read", { x: "1" })).text).toBe("custom read");
    expect(registry.names().filter((n) => n === "read")).toHaveLength(1);
    expect(registry.unregister("read")).toBe(true);
    expect(registry.get("read")).toBeUndefined();
    expect((await registry.execute("read", { path: "a" })).error?.message).toStartWith("Unknown tool 'read'.");
  });

  test("extra tools from options are registered and active", async () => {
    const registry = createToolRegistry({
      cwd: ws.root,
      env: ws.env,
      preset: "readonly",
      tools: [customTool("hello", async (_a, ctx) => ctx.reply.success({}, "hi"))],
    });
    expect(registry.names()).toEqual(["read", "grep", "find", "ls", "hello"]);
    expect((await registry.execute("hello", {})).text).toBe("hi");
  });

  test("an aborted signal stops the call before it runs", async () => {
    const controller = new AbortController();
    controller.abort();
    ws.write("abort.txt", "x");
    const r = await make().execute("write", { path: "abort.txt", content: "changed" }, { signal: controller.signal });
    expect(r.error).toEqual({ code: "EXECUTION_ERROR", message: "Operation aborted" });
    expect(ws.read("abort.txt")).toBe("x");
  });

  test("without env the registry works in a LocalEnvironment over cwd", async () => {
    using temp = tempDir("gong-registry-default-");
    const dir = temp.dir;
    writeFileSync(join(dir, "note.txt"), "hi\n");
    const registry = createToolRegistry({ cwd: dir });
    const r = await registry.execute("read", { path: "note.txt" });
    expect(r.data.content).toBe("   1 | hi\n");
    expect(r.context.cwd).toBe(".");
    await registry.env.cleanup();
  });
});
