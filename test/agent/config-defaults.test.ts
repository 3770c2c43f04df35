/**
 * The session configuration's defaults are the ones the spec's SessionConfig names
 * (docs/conformance.md: 004 §2.2); gong's own keys beside them are in docs/sdk.md.
 */
import { expect, test } from "bun:test";
import { resolveConfig } from "../../lib/agent/index.ts";

test("004 §2.2 the defaults are the spec's: no turn limit, 200 tool rounds, 10 s and 10 min command timeouts, no effort, loop detection over 10 calls, subagent depth 1", () => {
  expect(resolveConfig({})).toMatchObject({
    maxTurns: 0,
    maxToolRoundsPerInput: 200,
    defaultCommandTimeoutMs: 10_000,
    maxCommandTimeoutMs: 600_000,
    reasoningEffort: null,
    toolOutputLimits: {},
    enableLoopDetection: true,
    loopDetectionWindow: 10,
    maxSubagentDepth: 1,
  });
});
