/**
 * Issue 40: the keybindings file in Claude Code's format and place (~/.claude/keybindings.json,
 * gong's own after it), its keys as the keyboard layer turns them into gong's, and what a file
 * that cannot be used says.
 */
import { expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { EventEmitter } from "node:events";
import { duplicateKeys, keyEvent, keyId, loadKeymap, normalizeKey } from "../../lib/cli/keybindings.ts";
import { Keyboard } from "../../lib/cli/keyboard.ts";
import type { Key } from "../../lib/cli/line-editor.ts";
import { tempDir } from "../helpers/temp.ts";

function homes(claude?: unknown, gong?: unknown) {
  const dir = tempDir("gong-keys-");
  const home = join(dir.dir, "home");
  const gongHome = join(dir.dir, "gong");
  mkdirSync(join(home, ".claude"), { recursive: true });
  mkdirSync(gongHome, { recursive: true });
  const put = (file: string, value: unknown) =>
    writeFileSync(file, typeof value === "string" ? value : JSON.stringify(value));
  if (claude !== undefined) put(join(home, ".claude", "keybindings.json"), claude);
  if (gong !== undefined) put(join(gongHome, "keybindings.json"), gong);
  return { home, gongHome, [Symbol.dispose]: () => dir.cleanup() };
}

test("issue 40 keybindings: keys are read in one spelling, as the terminal sends them and as a file writes them", () => {
  expect(normalizeKey("Ctrl+Shift+G")).toBe("ctrl+shift+g");
  expect(normalizeKey("alt+p")).toBe("meta+p");
  expect(normalizeKey("esc")).toBe("escape");
  expect(normalizeKey("enter")).toBe("return");
  expect(normalizeKey("hyper+x")).toBeNull();
  expect(keyId({ name: "o", ctrl: true })).toBe("ctrl+o");
  expect(keyId({ name: "g", shift: true }, "G")).toBe("shift+g");
  expect(keyId({ sequence: "/" }, "/")).toBe("/");
  expect(keyEvent("ctrl+g").key).toMatchObject({ name: "g", ctrl: true, sequence: "\x07" });
  expect(keyEvent("shift+tab").key.sequence).toBe("\x1b[Z");
});

test("issue 40 keybindings: Claude Code's file rebinds and unbinds the shell's keys; gong's own file wins", () => {
  using h = homes(
    { bindings: [{ context: "Global", bindings: { "ctrl+t": "app:toggleTranscript", "ctrl+o": null } }] },
    {
      bindings: [
        { context: "Chat", bindings: { "ctrl+e": "chat:externalEditor", "ctrl+x ctrl+e": "chat:externalEditor" } },
      ],
    },
  );
  const keymap = loadKeymap({ home: h.home, gongHome: h.gongHome });
  expect(keymap.warnings).toEqual([]);
  expect(keymap.shell.get("ctrl+t")).toBe("ctrl+o");
  expect(keymap.shell.get("ctrl+o")).toBeNull();
  expect(keymap.shell.get("ctrl+e")).toBe("ctrl+g");
  expect(keymap.shell.get("ctrl+x ctrl+e")).toBe("ctrl+g");
});

test("issue 40 keybindings: a file that does not parse, or binds one key twice, is one line each and the rest applies", () => {
  using broken = homes("{ bindings: [ not json");
  const a = loadKeymap({ home: broken.home, gongHome: broken.gongHome });
  expect(a.warnings).toHaveLength(1);
  expect(a.warnings[0]).toContain("keybindings.json is not valid JSON");
  expect(a.warnings[0]).toContain("the default keys stay");
  expect(a.shell.size).toBe(0);

  using twice = homes(
    '{"bindings": [{"context": "Global", "bindings": {"ctrl+t": "app:toggleTranscript", "ctrl+t": "history:search"}},' +
      ' {"context": "Chat", "bindings": {"ctrl+e": "chat:externalEditor"}}, {"context": "Chat", "bindings": {"ctrl+e": "chat:cancel"}},' +
      ' {"context": "Chat", "bindings": {"ctrl+y": "chat:nothing"}}, {"context": "Settings", "bindings": {}}]}',
  );
  const b = loadKeymap({ home: twice.home, gongHome: twice.gongHome });
  expect(b.warnings.some((w) => w.includes('"ctrl+t" is written twice in one block'))).toBe(true);
  expect(
    b.warnings.some((w) => w.includes("ctrl+e is bound twice in Chat (chat:externalEditor, then chat:cancel)")),
  ).toBe(true);
  expect(b.warnings.some((w) => w.includes('gong has no action "chat:nothing"'))).toBe(true);
  expect(b.warnings.some((w) => w.includes('gong has no "Settings" context'))).toBe(true);
  expect(b.warnings).toHaveLength(4);
  // The last binding of each key is the one used.
  expect(b.shell.get("ctrl+t")).toBe("ctrl+r");
  expect(b.shell.get("ctrl+e")).toBe("escape");
});

test("issue 40 keybindings: duplicate keys are found in any object of the file", () => {
  expect(duplicateKeys('{"a": 1, "b": {"c": 1, "c": 2}, "a": [{"d": 1}, {"d": 2}]}')).toEqual(["c", "a"]);
});

test("issue 40 keybindings: the keyboard layer turns a bound key and a chord into gong's keys and drops an unbound one", async () => {
  const input = Object.assign(new EventEmitter(), { isTTY: true, setRawMode() {}, resume() {}, pause() {} });
  const keymap = {
    shell: new Map<string, string | null>([
      ["ctrl+t", "ctrl+o"],
      ["ctrl+o", null],
      ["ctrl+k ctrl+e", "ctrl+g"],
    ]),
  };
  const keyboard = new Keyboard(input as never, keymap);
  const seen: string[] = [];
  keyboard.on("keypress", (_t: string | undefined, k: Key) => seen.push(keyId(k) ?? "?"));
  const press = (id: string) => {
    const { text, key } = keyEvent(id);
    input.emit("keypress", text, key);
  };
  press("ctrl+t");
  press("ctrl+o");
  press("ctrl+k");
  press("ctrl+e");
  press("a");
  expect(seen).toEqual(["ctrl+o", "ctrl+g", "a"]);
  // A chord's first key alone goes on as typed once the next key is not its second.
  press("ctrl+k");
  press("b");
  expect(seen.slice(3)).toEqual(["ctrl+k", "b"]);
  keyboard.close();
});
