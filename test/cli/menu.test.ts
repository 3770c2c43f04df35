/** Issue 40: the shell's menu — arrow keys, single keys, a text field on an item, a filter, Esc. */
import { expect, test } from "bun:test";
import { Menu, type MenuItem } from "../../lib/cli/menu.ts";
import { makeStyle } from "../../lib/cli/render.ts";
import { fitParts, textWidth } from "../../lib/cli/text-width.ts";

const plain = makeStyle(false);
const key = (name: string, extra: Record<string, unknown> = {}) => ({ name, ...extra });
/** A typed character, as the line editor reports it. */
const typed = (menu: Menu<string>, text: string) => {
  let outcome: ReturnType<Menu<string>["handle"]> = "ignored";
  for (const ch of text) outcome = menu.handle(ch, key(ch === " " ? "space" : ch.toLowerCase()));
  return outcome;
};

const ANSWERS: MenuItem<string>[] = [
  { value: "yes", label: "Yes", key: "y" },
  { value: "always", label: "Yes, always in this project", key: "a" },
  { value: "no", label: "No", key: "n", input: "why? (Enter: no reason)" },
];

test("issue 40: a menu moves with Up/Down (wrapping) and chooses with Enter", () => {
  const menu = new Menu({ items: ANSWERS }, plain);
  expect(menu.view(60).rows.slice(0, 3)).toEqual(["❯ 1. Yes", "  2. Yes, always in this project", "  3. No"]);
  expect(menu.handle(undefined, key("down"))).toBe("changed");
  expect(menu.view(60).rows[1]).toBe("❯ 2. Yes, always in this project");
  menu.handle(undefined, key("up"));
  menu.handle(undefined, key("up"));
  expect(menu.current?.value).toBe("no");
  menu.handle(undefined, key("down"));
  expect(menu.handle("\r", key("return"))).toEqual({ chose: { value: "yes", item: ANSWERS[0] } });
});

test("issue 40: a single key or the item's number chooses at once; other keys are not taken", () => {
  expect(new Menu({ items: ANSWERS }, plain).handle("a", key("a"))).toEqual({
    chose: { value: "always", item: ANSWERS[1] },
  });
  expect(new Menu({ items: ANSWERS }, plain).handle("Y", key("y", { shift: true }))).toEqual({
    chose: { value: "yes", item: ANSWERS[0] },
  });
  expect(new Menu({ items: ANSWERS }, plain).handle("2", key("2"))).toEqual({
    chose: { value: "always", item: ANSWERS[1] },
  });
  const menu = new Menu({ items: ANSWERS }, plain);
  expect(menu.handle("q", key("q"))).toBe("ignored");
  expect(menu.handle("7", key("7"))).toBe("ignored");
  expect(menu.handle(undefined, key("escape"))).toEqual({ cancelled: true });
});

test("issue 40: an item with a text field opens it; typed keys (its own key included) go there; Enter returns the text, Esc closes the field", () => {
  const menu = new Menu({ items: ANSWERS }, plain);
  expect(menu.handle("n", key("n"))).toBe("changed");
  expect(menu.view(60).rows[2]).toBe("❯ 3. No why? (Enter: no reason)");
  // "n not now" typed in one go: the first n opens the field, the rest is its text.
  expect(typed(menu, " not now y")).toBe("changed");
  const view = menu.view(60);
  expect(view.rows[2]).toBe("❯ 3. No  not now y");
  expect(view.cursor).toEqual({ row: 2, col: textWidth("❯ 3. No  not now y") });
  menu.handle(undefined, key("backspace"));
  expect(menu.handle("\r", key("return"))).toEqual({ chose: { value: "no", item: ANSWERS[2], text: " not now " } });
  const closed = new Menu({ items: ANSWERS }, plain);
  closed.handle("n", key("n"));
  expect(closed.handle(undefined, key("escape"))).toBe("changed");
  expect(closed.handle(undefined, key("escape"))).toEqual({ cancelled: true });
});

test("issue 40: a filtering menu narrows as the user types, scrolls to keep the selection in view, and shows a preview", () => {
  const items = Array.from({ length: 30 }, (_, i) => ({
    value: `m${i}`,
    label: `model-${i}`,
    detail: i % 2 ? "odd" : "even",
  }));
  const menu = new Menu(
    { items, filter: "filter: ", maxItems: 5, preview: (item) => [`preview of ${item.label}`] },
    plain,
  );
  let view = menu.view(60);
  expect(view.rows[0]).toBe("filter: ");
  expect(view.rows.filter((r) => /^[ ❯] model-/.test(r)).length).toBe(5);
  expect(view.rows).toContain("  ↓ 25 more");
  // Digits go to the filter in a filtering menu.
  typed(menu, "2");
  view = menu.view(60);
  expect(view.rows[0]).toBe("filter: 2");
  expect(view.cursor).toEqual({ row: 0, col: 9 });
  expect(view.rows.filter((r) => /^[ ❯] model-/.test(r)).map((r) => r.trim())).toEqual([
    "❯ model-2 even",
    "model-12 even",
    "model-20 even",
    "model-21 odd",
    "model-22 even",
  ]);
  for (let i = 0; i < 6; i++) menu.handle(undefined, key("down"));
  view = menu.view(60);
  expect(view.rows).toContain("❯ model-24 even");
  expect(view.rows.some((r) => r.startsWith("  ↑ "))).toBe(true);
  expect(view.rows).toContain("preview of model-24");
  typed(menu, "zz");
  expect(menu.view(60).rows).toContain("  nothing matches");
  expect(menu.handle("\r", key("return"))).toBe("ignored");
  menu.handle(undefined, key("backspace"));
  menu.handle(undefined, key("backspace"));
  expect(menu.handle("\r", key("return"))).toEqual({ chose: { value: "m2", item: items[2] } });
});

test("issue 40: at 40 columns the menu's rows fit: long labels wrap under their text, the hint drops whole parts", () => {
  const menu = new Menu(
    {
      title: ["? run this command?"],
      items: [
        { value: "a", label: "Yes, and don't ask again for Bash(npm test *) and Bash(git status) here", key: "a" },
        ...ANSWERS,
      ],
    },
    plain,
  );
  const { rows } = menu.view(40);
  for (const row of rows) expect(textWidth(row)).toBeLessThanOrEqual(39);
  expect(rows[1]).toStartWith("❯ 1. Yes, and don't ask again for");
  expect(rows[2]).toStartWith("     ");
  const hint = rows.at(-1)!;
  expect(hint).not.toContain("…");
  expect(hint).toContain("Enter");
});

test("issue 40: parts of a narrow row shorten, then leave whole, lowest rank first", () => {
  const parts = [
    { text: "model (profile)", short: "model", rank: 3 },
    { text: "approval: ask (Shift+Tab)", short: "ask", rank: 2 },
    { text: "context 3%", rank: 1 },
    { text: "$0.0012", rank: 2 },
  ];
  expect(fitParts(parts, 80)).toBe("model (profile) · approval: ask (Shift+Tab) · context 3% · $0.0012");
  expect(fitParts(parts, 60)).toBe("model (profile) · approval: ask (Shift+Tab) · $0.0012");
  expect(fitParts(parts, 40)).toBe("model (profile) · ask · $0.0012");
  expect(fitParts(parts, 16)).toBe("model (profile)");
  expect(fitParts(parts, 10)).toBe("model");
  expect(fitParts(parts, 4)).toBe("mod…");
});
