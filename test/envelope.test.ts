/**
 * The standard envelope (docs/conformance.md: 000 §1): the builders make the invariants impossible
 * to break.
 */
import { describe, expect, test } from "bun:test";
import { ToolError, envelopeProblems, startReply } from "../lib/envelope.ts";

const params = { path: "src/a.ts", limit: 5, extra: [1, 2] };

describe("000 envelope builders", () => {
  test("000-1 success: only the envelope fields, no error, context filled", () => {
    const r = startReply(params).success({ content: "x" }, "Read 1 line.", {
      pathResolved: "src/a.ts",
      stats: { lines_read: 1 },
    });
    expect(Object.keys(r).sort()).toEqual(["context", "data", "stats", "status", "text"]);
    expect(r.status).toBe("success");
    expect("error" in r).toBe(false);
    expect(r.context).toEqual({ cwd: ".", params_input: params, path_resolved: "src/a.ts" });
    expect(r.context.params_input).toBe(params); // the raw arguments, as given
    expect(typeof r.stats.time_ms).toBe("number");
    expect(r.stats.lines_read).toBe(1);
    expect(envelopeProblems(r)).toEqual([]);
  });

  test("000-3.3 error: status error iff an error {code, message} is present; text defaults to the message", () => {
    const r = startReply(params, "src").fail("NOT_FOUND", "File 'src/a.ts' does not exist.");
    expect(r.status).toBe("error");
    expect(r.error).toEqual({ code: "NOT_FOUND", message: "File 'src/a.ts' does not exist." });
    expect(r.text).toBe("File 'src/a.ts' does not exist.");
    expect(r.data).toEqual({});
    expect(r.context.cwd).toBe("src");
    expect(envelopeProblems(r)).toEqual([]);
  });

  test("000-3.2 partial keeps data and has no error", () => {
    const r = startReply({}).partial({ truncated: true }, "Results truncated to first 100 items.");
    expect(r.status).toBe("partial");
    expect(r.error).toBeUndefined();
    expect(envelopeProblems(r)).toEqual([]);
  });

  test("000-2 data is always an object; stats keep only finite numbers and strings; time_ms cannot be overridden", () => {
    const reply = startReply({});
    const r = reply.success(null as unknown as Record<string, unknown>, "ok", {
      stats: { time_ms: -5, n: Number.NaN, ok: 3, enc: "utf-8" },
    });
    expect(r.data).toEqual({});
    expect(r.stats.time_ms).toBeGreaterThanOrEqual(0);
    expect(r.stats).not.toHaveProperty("n");
    expect(r.stats.ok).toBe(3);
    expect(r.stats.enc).toBe("utf-8");
    expect(reply.success([1] as unknown as Record<string, unknown>, "ok").data).toEqual({});
  });

  test("000-1 extras cannot replace cwd or params_input", () => {
    const r = startReply(params).success({}, "ok", {
      context: { cwd: "/etc", params_input: "forged", truncation_skip: true },
    });
    expect(r.context.cwd).toBe(".");
    expect(r.context.params_input).toBe(params);
    expect(r.context.truncation_skip).toBe(true);
  });

  test("000-3.3 fromError: a ToolError keeps its code, anything else is INTERNAL_ERROR", () => {
    const reply = startReply({});
    expect(reply.fromError(new ToolError("ACCESS_DENIED", "outside")).error).toEqual({
      code: "ACCESS_DENIED",
      message: "outside",
    });
    const internal = reply.fromError(new TypeError("x is undefined"));
    expect(internal.error?.code).toBe("INTERNAL_ERROR");
    expect(internal.error?.message).toContain("x is undefined");
    expect(reply.fromError("a string").error?.code).toBe("INTERNAL_ERROR");
  });
});

describe("000 envelopeProblems finds every broken invariant", () => {
  const good = () => startReply({}).success({}, "ok") as unknown as Record<string, unknown>;
  test.each([
    ["an extra top-level field", (r: Record<string, unknown>) => (r.extra = 1), "extra top-level field 'extra'"],
    [
      "an error on success",
      (r: Record<string, unknown>) => (r.error = { code: "NOT_FOUND", message: "x" }),
      "error present on a non-error status",
    ],
    [
      "no error on an error status",
      (r: Record<string, unknown>) => (r.status = "error"),
      "error missing on an error status",
    ],
    [
      "an unknown code",
      (r: Record<string, unknown>) => ((r.status = "error"), (r.error = { code: "OOPS", message: "x" })),
      "unknown error code OOPS",
    ],
    ["data null", (r: Record<string, unknown>) => (r.data = null), "data is not an object"],
    ["no time_ms", (r: Record<string, unknown>) => (r.stats = {}), "stats.time_ms missing"],
    ["no cwd", (r: Record<string, unknown>) => (r.context = { params_input: {} }), "context.cwd missing"],
    ["no params_input", (r: Record<string, unknown>) => (r.context = { cwd: "." }), "context.params_input missing"],
    ["a bad status", (r: Record<string, unknown>) => (r.status = "ok"), "bad status ok"],
  ])("%s", (_name, breakIt, problem) => {
    const r = good();
    breakIt(r);
    expect(envelopeProblems(r)).toContain(problem);
  });
});
