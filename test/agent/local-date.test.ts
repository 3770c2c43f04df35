/**
 * The prompt's date (docs/conformance.md: 004 §6.3 "today's date") where the zone is UTC comes
 * without the time-zone database, and is the same date the local calendar gives.
 */
import { expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { localDate, zoneIsUtc } from "../../lib/agent/local-date.ts";
import { tempDir } from "../helpers/temp.ts";

/** A TZif v2 file's shape as far as it matters here: header bytes, then the footer's POSIX TZ rule. */
const tzif = (rule: string) =>
  Buffer.concat([Buffer.from("TZif2"), Buffer.alloc(40), Buffer.from(`\n${rule}\n`, "latin1")]);

test("004 6.3 date: under UTC the date is the UTC date, just before and after midnight", () => {
  expect(localDate(new Date("2026-03-01T23:59:59Z"), true)).toBe("2026-03-01");
  expect(localDate(new Date("2026-03-02T00:00:00Z"), true)).toBe("2026-03-02");
});

test("004 6.3 date: another zone uses the local calendar", () => {
  const now = new Date("2026-07-04T12:00:00Z");
  const pad = (n: number) => String(n).padStart(2, "0");
  expect(localDate(now, false)).toBe(`${now.getFullYear()}-${pad(now.getMonth() + 1)}-${pad(now.getDate())}`);
});

test("004 6.3 date: TZ naming UTC is UTC; another TZ is not", () => {
  for (const tz of ["UTC", "Etc/UTC", ":UTC", "UTC0", "GMT", "Etc/GMT"])
    expect(zoneIsUtc({ TZ: tz }, "/nonexistent")).toBe(true);
  for (const tz of ["Europe/Berlin", "CET-1CEST,M3.5.0,M10.5.0/3", "", "UTC+3"])
    expect(zoneIsUtc({ TZ: tz }, "/nonexistent")).toBe(false);
});

test("004 6.3 date: without TZ the zone file's rule for the present decides", () => {
  using tmp = tempDir();
  writeFileSync(tmp.path("utc"), tzif("UTC0"));
  writeFileSync(tmp.path("berlin"), tzif("CET-1CEST,M3.5.0,M10.5.0/3"));
  writeFileSync(tmp.path("v1"), Buffer.concat([Buffer.from("TZif"), Buffer.alloc(40)]));
  expect(zoneIsUtc({}, tmp.path("utc"))).toBe(true);
  expect(zoneIsUtc({}, tmp.path("berlin"))).toBe(false);
  expect(zoneIsUtc({}, tmp.path("v1"))).toBe(false);
  expect(zoneIsUtc({}, tmp.path("missing"))).toBe(false);
});
