/**
 * Runs one tool call in a separate process and prints its envelope as JSON. Used to run a tool as
 * an unprivileged user (permission tests must mean something even when the suite runs as root).
 * Usage: bun tool-child.ts <root> <tool> <json-args>
 */
import { createToolRegistry } from "../../tools/registry.ts";

const [root, name, json] = process.argv.slice(2);
const registry = createToolRegistry({ cwd: root });
const result = await registry.execute(name, JSON.parse(json));
await registry.env.cleanup();
process.stdout.write(JSON.stringify(result));
