/**
 * Plugins (issue 39): start-up with 0, 10 and 50 installed and enabled plugins, each with three
 * commands, two skills and a hook — reading them in-process, and the two-turn task through
 * `gong -p` (one bash call, then an answer), the counts run in alternation so the machine's load
 * weighs on each alike. With no plugin installed the plugin code is not loaded at all.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { installPlugin } from "../../lib/setup/plugins/install.ts";
import { loadBundles } from "../../lib/setup/plugins/index.ts";
import { addMarketplace } from "../../lib/setup/plugins/marketplaces.ts";
import { PluginHome } from "../../lib/setup/plugins/store.ts";
import { series, twoTurnArgs, twoTurnModel } from "./cli.ts";
import { type BenchRow, median, medianMs, ms } from "./measure.ts";

const ROOT = join(import.meta.dir, "../..");
const COUNTS = [0, 10, 50];

/** A marketplace folder of `count` plugins. */
function marketplace(count: number): string {
  const dir = mkdtempSync(join(tmpdir(), "gong-bench-market-"));
  const plugins = [];
  for (let i = 0; i < count; i++) {
    const root = join(dir, "plugins", `p${i}`);
    mkdirSync(join(root, ".claude-plugin"), { recursive: true });
    writeFileSync(join(root, ".claude-plugin/plugin.json"), JSON.stringify({ name: `p${i}`, version: "1.0.0" }));
    mkdirSync(join(root, "commands"));
    for (let c = 0; c < 3; c++)
      writeFileSync(
        join(root, "commands", `c${c}.md`),
        `---\ndescription: Command ${c} of plugin ${i}\n---\nDo ${c} with $ARGUMENTS.\n`,
      );
    for (let s = 0; s < 2; s++) {
      mkdirSync(join(root, "skills", `s${s}`), { recursive: true });
      writeFileSync(
        join(root, "skills", `s${s}`, "SKILL.md"),
        `---\nname: s${s}\ndescription: Skill ${s} of plugin ${i}; use it for task ${s}.\n---\n${"Steps. ".repeat(40)}\n`,
      );
    }
    mkdirSync(join(root, "hooks"));
    writeFileSync(
      join(root, "hooks/hooks.json"),
      JSON.stringify({ hooks: { PostToolUse: [{ matcher: "Write", hooks: [{ type: "command", command: "true" }] }] } }),
    );
    plugins.push({ name: `p${i}`, source: `./plugins/p${i}` });
  }
  mkdirSync(join(dir, ".claude-plugin"), { recursive: true });
  writeFileSync(join(dir, ".claude-plugin/marketplace.json"), JSON.stringify({ name: "bench", plugins }));
  return dir;
}

/** A gong home with `count` plugins installed and turned on. */
async function gongHomeWith(count: number): Promise<{ home: string; cleanup(): void }> {
  const home = mkdtempSync(join(tmpdir(), "gong-bench-plugins-home-"));
  const market = marketplace(count);
  const gong = join(home, ".gong");
  mkdirSync(gong, { recursive: true });
  if (count > 0) {
    const plugins = new PluginHome(gong);
    await addMarketplace(plugins, { source: "directory", path: market });
    const enabled: Record<string, boolean> = {};
    for (let i = 0; i < count; i++) {
      await installPlugin(plugins, `p${i}`, "bench");
      enabled[`p${i}@bench`] = true;
    }
    writeFileSync(join(gong, "settings.json"), JSON.stringify({ enabledPlugins: enabled }));
  }
  return {
    home,
    cleanup() {
      rmSync(home, { recursive: true, force: true });
      rmSync(market, { recursive: true, force: true });
    },
  };
}

export async function rows(): Promise<BenchRow[]> {
  const homes = await Promise.all(COUNTS.map(gongHomeWith));
  const project = mkdtempSync(join(tmpdir(), "gong-bench-plugins-"));
  const fake = await twoTurnModel();
  try {
    const out: BenchRow[] = [];
    for (const [i, count] of COUNTS.entries()) {
      if (count === 0) continue;
      const all = Object.fromEntries(Array.from({ length: count }, (_, n) => [`p${n}@bench`, true]));
      const read = () =>
        loadBundles({
          cwd: project,
          home: homes[i].home,
          gongHome: join(homes[i].home, ".gong"),
          layers: [{ file: "settings.json", scope: "user", enabledPlugins: all }],
          trusted: true,
          untrustedHint: "",
        });
      if ((await read()).skills.length !== count * 2) throw new Error(`the ${count} plugins' skills were not all read`);
      out.push({
        area: "plugins",
        name: `read ${count} installed plugins (3 commands, 2 skills, a hook each)`,
        value: ms(await medianMs(read)),
      });
    }
    const task = (home: string) =>
      series(1, [process.execPath, join(ROOT, "cli.ts"), ...twoTurnArgs(fake.baseUrls.anthropic)], project, {
        PATH: process.env.PATH ?? "/usr/bin:/bin",
        HOME: home,
        GONG_HOME: join(home, ".gong"),
      });
    const walls: number[][] = COUNTS.map(() => []);
    for (let round = 0; round < 8; round++)
      for (const [i] of COUNTS.entries()) walls[i].push((await task(homes[i].home)).wall);
    for (const [i, count] of COUNTS.entries())
      out.push({
        area: "plugins",
        name: `two-turn task (bun cli.ts -p), ${count} plugins installed and on: wall`,
        value: ms(median(walls[i])),
        target: count === 0 ? "as before plugins" : undefined,
      });
    return out;
  } finally {
    await fake.close();
    for (const h of homes) h.cleanup();
    rmSync(project, { recursive: true, force: true });
  }
}
