/**
 * Issue 34, the gate: a `WebFetch(domain:…)` deny meets every URL a fetch call reaches — gemini's
 * `web_fetch {prompt: "Summarize https://evil.example/page"}` included, whose URLs are in its prompt
 * — under every profile's fetch tool; host names are compared as the fetcher reads them (case, a
 * trailing dot, `www.`).
 */
import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { useWorkspace } from "../cli/helpers.ts";
import { tempDir } from "../helpers/temp.ts";
import { startWebServer } from "../helpers/web-server.ts";
import { callsThenDone, claudeSettings, occurrences, runUnder } from "./cli.ts";
import { PROFILE_CALLS, PROFILES, rules, ruled } from "./helpers.ts";

const place = tempDir("gong-fetch-");
afterAll(() => place.cleanup());

describe("issue 34: a WebFetch(domain:evil.example) deny meets the host wherever the call names it", () => {
  const deny = rules({ deny: ["WebFetch(domain:evil.example)"] }, place.dir);
  for (const profile of PROFILES) {
    test(`under the ${profile} profile's fetch tool`, async () => {
      for (const url of [
        "https://evil.example/page",
        "https://EVIL.example./page",
        "https://www.evil.example/page",
        "https://user@evil.example:8443/x",
      ])
        expect({ url, behavior: await ruled(deny, PROFILE_CALLS[profile].fetch(url), place.dir, profile) }).toEqual({
          url,
          behavior: "deny",
        });
      expect(
        await ruled(deny, PROFILE_CALLS[profile].fetch("https://good.example/"), place.dir, profile),
      ).toBeUndefined();
    });
  }

  test("gemini's prompt with several URLs: denied when any is; allowed only when every one is", async () => {
    const call = { name: "web_fetch", args: { prompt: "Compare https://docs.example/a with https://evil.example/b" } };
    expect(await ruled(deny, call, place.dir, "gemini")).toBe("deny");
    const allowDocs = rules({ allow: ["WebFetch(domain:docs.example)"] }, place.dir);
    expect(await ruled(allowDocs, call, place.dir, "gemini")).toBeUndefined();
    const allowBoth = rules({ allow: ["WebFetch(domain:docs.example)", "WebFetch(domain:*.example)"] }, place.dir);
    expect(await ruled(allowBoth, call, place.dir, "gemini")).toBe("allow");
  });
});

const ws = useWorkspace();

describe("issue 34, end to end: gong -p with a WebFetch(domain:localhost) deny fetches nothing from it", () => {
  for (const profile of PROFILES) {
    test(`under the ${profile} profile`, async () => {
      await using server = await startWebServer();
      // Loopback is the user's to open (web.allowHosts); the project's rule then denies one name for it.
      mkdirSync(join(ws.home, ".gong"), { recursive: true });
      writeFileSync(
        join(ws.home, ".gong", "settings.json"),
        JSON.stringify({ web: { allowHosts: ["localhost", "127.0.0.1"] } }),
      );
      const file = claudeSettings(ws.dir, { permissions: { deny: ["WebFetch(domain:localhost)"] } });
      // The name as the rule writes it, and as the fetcher reads it too (case, a trailing dot).
      const denied = [`http://localhost:${server.port}/docs`, `http://LocalHost.:${server.port}/docs`];
      const allowed = `${server.url}/changelog.md`;
      // A fetch with a prompt asks the model about the page: the script answers that request first.
      const [calls, done] = callsThenDone([...denied, allowed].map((url) => PROFILE_CALLS[profile].fetch(url)));
      const asksAboutPage = profile === "anthropic" || profile === "gemini";
      const r = await runUnder(ws, profile, asksAboutPage ? [calls, { text: "the changelog" }, done] : [calls, done]);
      expect(r.code).toBe(0);
      expect(server.served.get("/docs")).toBeUndefined();
      expect(server.served.get("/changelog.md")).toBe(1);
      expect(occurrences(r.sent, `was denied by the rule WebFetch(domain:localhost) in ${file}`)).toBe(2);
    }, 60_000);
  }
});
