/**
 * Test helpers: a workspace tree as { path → "file:<mode>:<base64>" | "dir:<mode>" | "link:<target>" },
 * so two states compare byte for byte and mode for mode in one `toEqual`.
 */
import { lstatSync, readdirSync, readFileSync, readlinkSync } from "node:fs";
import { join } from "node:path";

export function treeOf(root: string, leaveOut: (rel: string) => boolean = () => false): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (dir: string, rel: string) => {
    for (const name of readdirSync(dir).sort()) {
      const childRel = rel ? `${rel}/${name}` : name;
      if (name === ".git" || leaveOut(childRel)) continue;
      const abs = join(dir, name);
      const st = lstatSync(abs);
      const mode = (st.mode & 0o7777).toString(8);
      if (st.isDirectory()) {
        out[childRel] = `dir:${mode}`;
        walk(abs, childRel);
      } else if (st.isSymbolicLink()) out[childRel] = `link:${readlinkSync(abs)}`;
      else out[childRel] = `file:${mode}:${readFileSync(abs).toString("base64")}`;
    }
  };
  walk(root, "");
  return out;
}
