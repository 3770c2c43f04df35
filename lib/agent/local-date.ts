/**
 * Today's date where the user is, for the system prompt. Local time makes the runtime load its
 * time-zone database (about 4 MB of memory in Bun, for one date), so where the zone is UTC — the
 * usual case in containers and CI — the date comes from UTC, which is the same date; any other
 * zone uses the local calendar.
 */
import { readFileSync } from "node:fs";
import process from "node:process";

/** YYYY-MM-DD in the local time zone. */
export function localDate(now = new Date(), utc = zoneIsUtc()): string {
  if (utc) return now.toISOString().slice(0, 10);
  const pad = (n: number) => String(n).padStart(2, "0");
  return `${now.getFullYear()}-${pad(now.getMonth() + 1)}-${pad(now.getDate())}`;
}

/**
 * Whether local time is UTC: TZ names UTC, or (TZ unset) the zone file's rule for the present is
 * UTC. A TZif file (v2 and later) ends with a POSIX TZ string that holds after its last transition,
 * that is, now; a zone that is UTC today ends "\nUTC0\n". Anything else — no file, an older
 * format, another zone — answers false, and the local calendar decides.
 */
export function zoneIsUtc(env: Record<string, string | undefined> = process.env, zoneFile = "/etc/localtime"): boolean {
  if (env.TZ !== undefined) return /^:?(Etc\/)?(UTC|UCT|GMT|Zulu|Universal)0?$/.test(env.TZ);
  try {
    return /\n(UTC|GMT)0\n$/.test(readFileSync(zoneFile).subarray(-16).toString("latin1"));
  } catch {
    return false;
  }
}
