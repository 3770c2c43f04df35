/** What grep and find tests share: how a search reports (or does not report) the TypeScript fallback. */
import { expect } from "bun:test";
import type { ToolResponse } from "../../lib/envelope.ts";

/** With the fallback: status "partial", data.fallback "typescript" and the notice; without: none of them. */
export function expectFallbackReported(r: ToolResponse, fallback: boolean, notice: string): void {
  if (fallback) {
    expect(r.status).toBe("partial");
    expect(r.data.fallback).toBe("typescript");
    expect(r.text).toContain(notice);
  } else {
    expect(r.status).toBe("success");
    expect(r.data.fallback).toBeUndefined();
    expect(r.text).not.toContain(notice);
  }
}
