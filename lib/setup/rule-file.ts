/**
 * Settings files gong writes for the user, keeping every other key: "always" answers as allow
 * rules (`permissions.allow`), plugins turned on or off (`enabledPlugins`). Temp file + rename:
 * never a half-written file; a file that does not parse is left as it is and the change is not
 * made (the caller says so).
 */
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { dirname } from "node:path";
import { writeFileAtomicSync } from "../temp-files.ts";

/** Applies `edit` to the file's settings object and writes it back; returns why not, when it could not. */
export function editSettingsFile(file: string, edit: (settings: Record<string, unknown>) => void): string | undefined {
  let settings: Record<string, unknown> = {};
  try {
    if (existsSync(file)) {
      const parsed = JSON.parse(readFileSync(file, "utf8"));
      if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed))
        return `${file} does not hold a JSON object`;
      settings = parsed;
    }
  } catch (e) {
    return `${file} is not valid JSON (${(e as Error).message})`;
  }
  edit(settings);
  try {
    mkdirSync(dirname(file), { recursive: true });
    writeFileAtomicSync(file, `${JSON.stringify(settings, null, 2)}\n`);
  } catch (e) {
    return `${file} could not be written (${(e as Error).message})`;
  }
  return undefined;
}

/** Adds `rules` to the file's `permissions.allow`; returns why not, when it could not. */
export function addAllowRules(file: string, rules: string[]): string | undefined {
  return editSettingsFile(file, (settings) => {
    const permissions =
      typeof settings.permissions === "object" && settings.permissions !== null
        ? (settings.permissions as Record<string, unknown>)
        : {};
    const allow = Array.isArray(permissions.allow) ? permissions.allow : [];
    settings.permissions = { ...permissions, allow: [...allow, ...rules.filter((r) => !allow.includes(r))] };
  });
}
