/**
 * web_fetch against a loopback server of saved real-world pages (issue 29): HTML becomes markdown
 * with links kept and scripts dropped, text/JSON/markdown pass through, a PDF and other binaries are
 * refused with their content type; the safety rules (addresses checked after DNS and on redirect, redirects to
 * other hosts reported, size and time caps while streaming, charset detection); and bad input is
 * one sentence with the status, never an exception.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createToolRegistry, type ToolRegistry } from "../../tools/registry.ts";
import { webFetchTool } from "../../tools/web-fetch.ts";
import { createWebAccess } from "../../lib/web/access.ts";
import { blockedAddressReason } from "../../lib/web/address.ts";
import { tempDir, type TempDir } from "../helpers/temp.ts";
import { BIG_PAGE_BYTES, startWebServer, type WebServer } from "../helpers/web-server.ts";

let server: WebServer;
let dir: TempDir;
let registry: ToolRegistry;
let closedRegistry: ToolRegistry;

beforeAll(async () => {
  server = await startWebServer();
  dir = tempDir("gong-web-");
  const make = (allowHosts: string[], limits = {}) =>
    createToolRegistry({
      cwd: dir.dir,
      preset: ["read"],
      tools: [webFetchTool],
      web: createWebAccess({ settings: { allowHosts }, limits }),
    });
  registry = make(["127.0.0.1"], { timeoutMs: 20_000 });
  closedRegistry = make([]);
});

afterAll(async () => {
  await server.close();
  dir.cleanup();
});

const fetchUrl = (url: string, reg = registry) => reg.execute("web_fetch", { url });

describe("web_fetch reads pages", () => {
  test("a documentation page becomes markdown: title, headings, absolute links kept, scripts dropped", async () => {
    const r = await fetchUrl(`${server.url}/docs`);
    expect(r.status).toBe("success");
    expect(r.text).toContain("Shared Mutable History");
    expect(r.text).toMatch(/^#+ /m);
    // A relative link on the page now points at the server.
    expect(r.text).toContain(`](${server.url}/`);
    expect(r.text).not.toContain("DOCUMENTATION_OPTIONS");
    expect(r.text).not.toContain("<script");
    expect(r.data.pages).toEqual([expect.objectContaining({ format: "markdown", truncated: false })]);
  });

  test("a GitHub page keeps its README and drops GitHub's navigation, scripts and styles", async () => {
    const r = await fetchUrl(`${server.url}/github`);
    expect(r.status).toBe("success");
    expect(r.text).toContain("marzipanify");
    expect(r.text).toContain("iOS Simulator");
    expect(r.text).not.toContain("turbo-progress-bar");
    expect(r.text).not.toContain("optimizely");
    // 280 KB of page, a few KB of reading.
    expect(r.text.length).toBeLessThan(20_000);
  });

  test("markdown and JSON pass through unchanged", async () => {
    const md = await fetchUrl(`${server.url}/changelog.md`);
    expect(md.text).toContain("## 7.0.77");
    expect(md.text).toContain("### Patch Changes");
    const json = await fetchUrl(`${server.url}/api/issue.json`);
    expect(json.status).toBe("success");
    expect(json.text).toContain('"title": "The web"');
  });

  test("a windows-1252 page without a charset header is decoded from its <meta>", async () => {
    const r = await fetchUrl(`${server.url}/latin`);
    expect(r.status).toBe("success");
    expect(r.text).toMatch(/[éèàç]/);
    expect(r.text).not.toContain("\uFFFD");
  });

  test("a gzip-encoded page is decoded", async () => {
    const r = await fetchUrl(`${server.url}/gzip-docs`);
    expect(r.text).toContain("Shared Mutable History");
  });

  test("a PDF is refused with its content type and the commands that read it", async () => {
    const r = await fetchUrl(`${server.url}/paper.pdf`);
    expect(r.status).toBe("error");
    expect(r.error?.code).toBe("BINARY_FILE");
    expect(r.error?.message).toContain("application/pdf");
    expect(r.error?.message).toContain("pdftotext");
  });

  test("another binary is refused with its content type", async () => {
    const r = await fetchUrl(`${server.url}/image.png`);
    expect(r.status).toBe("error");
    expect(r.error?.code).toBe("BINARY_FILE");
    expect(r.error?.message).toContain("image/png");
  });

  test("the 10 MB page is read whole and converted", async () => {
    const r = await fetchUrl(`${server.url}/big`);
    expect(r.status).toBe("success");
    const [page] = r.data.pages as { bytes: number }[];
    expect(page.bytes).toBeGreaterThan(BIG_PAGE_BYTES - 20_000);
    expect(r.text).toContain("obsolescence markers");
  });

  test("a page read twice within the cache's lifetime is fetched once", async () => {
    const before = server.served.get("/changelog.md") ?? 0;
    await fetchUrl(`${server.url}/changelog.md`);
    await fetchUrl(`${server.url}/changelog.md`);
    expect((server.served.get("/changelog.md") ?? 0) - before).toBeLessThanOrEqual(1);
  });
});

describe("web_fetch is safe by default", () => {
  test("loopback is refused unless web.allowHosts lists it — by address, and by a name resolving to it", async () => {
    const r = await fetchUrl(`${server.url}/docs`, closedRegistry);
    expect(r.status).toBe("error");
    expect(r.error?.code).toBe("ACCESS_DENIED");
    expect(r.error?.message).toContain("loopback");
    expect(r.error?.message).toContain("web.allowHosts");
    const named = await fetchUrl(`http://localhost:${server.port}/docs`, closedRegistry);
    expect(named.error?.code).toBe("ACCESS_DENIED");
    expect(named.error?.message).toContain("resolves to");
  });

  test("private, link-local, metadata and unique-local addresses are refused before connecting", async () => {
    for (const url of [
      "http://169.254.169.254/latest/meta-data/",
      "http://10.0.0.1/",
      "http://192.168.1.1/",
      "http://[fd00::1]/",
      "http://[::ffff:127.0.0.1]/",
      "http://[fe80::1]/",
    ]) {
      const r = await fetchUrl(url, closedRegistry);
      expect(r.error?.code).toBe("ACCESS_DENIED");
    }
  });

  test("issue 37 defect 4: IPv4-compatible and local-use NAT64 forms of the loopback server are refused", async () => {
    for (const url of [`http://[::127.0.0.1]:${server.port}/docs`, `http://[64:ff9b:1::7f00:1]:${server.port}/docs`]) {
      const r = await fetchUrl(url, closedRegistry);
      expect(r.error?.code).toBe("ACCESS_DENIED");
      expect(r.error?.message).toContain("a loopback address (127.0.0.1) behind an IPv6 translation");
    }
  });

  test("issue 37 defect 4: every IPv6 translation form is judged by the IPv4 address it carries", () => {
    const refused: Record<string, string> = {
      "::ffff:127.0.0.1": "127.0.0.1", // IPv4-mapped
      "::7f00:1": "127.0.0.1", // IPv4-compatible
      "::ffff:0:a00:1": "10.0.0.1", // IPv4-translated (SIIT)
      "64:ff9b::a9fe:a9fe": "169.254.169.254", // NAT64 well-known prefix
      "64:ff9b:1::c0a8:101": "192.168.1.1", // NAT64 local-use, /96
      "2002:a00:1::1": "10.0.0.1", // 6to4
      "2001:0:4136:e378:8000:63bf:80ff:fffe": "127.0.0.1", // Teredo client, bits inverted
      "2a00:1450:4001::5efe:a00:1": "10.0.0.1", // ISATAP
    };
    for (const [ip, v4] of Object.entries(refused))
      expect([ip, blockedAddressReason(ip)]).toEqual([
        ip,
        expect.stringContaining(`(${v4}) behind an IPv6 translation`),
      ]);
    for (const ip of ["64:ff9b::808:808", "2002:808:808::1", "2606:4700::1111", "::ffff:8.8.8.8"])
      expect([ip, blockedAddressReason(ip)]).toEqual([ip, undefined]);
    for (const ip of ["100::1", "2001:2::1", "3fff::1", "2001:db8::1"]) expect(blockedAddressReason(ip)).toBeString();
    // The local-use NAT64 prefix in any other layout (8.8.8.8 after a /48): where it ends depends on the local translator.
    expect(blockedAddressReason("64:ff9b:1:808:8:800::")).toBeString();
    expect(blockedAddressReason("64:ff9b:1::808:808")).toContain("a local-use NAT64 address (64:ff9b:1::/48)");
  });

  test("a redirect chain on the same host is followed", async () => {
    const r = await fetchUrl(`${server.url}/redirect/1`);
    expect(r.status).toBe("success");
    expect(r.data.pages).toEqual([expect.objectContaining({ final_url: `${server.url}/docs` })]);
  });

  test("a redirect loop stops at the limit with one sentence", async () => {
    const r = await fetchUrl(`${server.url}/loop`);
    expect(r.error?.code).toBe("EXECUTION_ERROR");
    expect(r.error?.message).toContain("redirected more than 5 times");
  });

  test("a redirect to 169.254.169.254 (another host) is reported to the model, not followed", async () => {
    const r = await fetchUrl(`${server.url}/to-metadata`);
    expect(r.status).toBe("success");
    expect(r.text).toContain("http://169.254.169.254/latest/meta-data/");
    expect(r.text).toContain("not followed");
    expect(r.data.redirects).toEqual([
      expect.objectContaining({ location: "http://169.254.169.254/latest/meta-data/", status: 302 }),
    ]);
  });
});

describe("web_fetch bad input: one sentence with the status", () => {
  const cases: [string, string, string, RegExp][] = [
    ["a malformed URL", "not a url", "INVALID_PARAM", /not a valid URL/],
    ["an unknown scheme", "ftp://example.com/file", "INVALID_PARAM", /Only http and https/],
    ["a file:// URL", "file:///etc/passwd", "INVALID_PARAM", /Only http and https/],
    ["credentials in the URL", "https://user:secret@example.com/", "INVALID_PARAM", /user name or password/],
    ["a DNS failure", "http://no-such-host.invalid/", "NOT_FOUND", /could not be resolved/],
  ];
  for (const [what, url, code, message] of cases) {
    test(what, async () => {
      const r = await fetchUrl(url);
      expect(r.status).toBe("error");
      expect(r.error?.code as string).toBe(code);
      expect(r.error?.message).toMatch(message);
    });
  }

  test("a TLS error (https to a server that does not speak TLS)", async () => {
    const r = await fetchUrl(`https://127.0.0.1:${server.port}/docs`);
    expect(r.status).toBe("error");
    expect(r.error?.message).toMatch(/TLS|refused|closed/);
  });

  test("404 and 500 name the status", async () => {
    const missing = await fetchUrl(`${server.url}/nothing-here`);
    expect(missing.error?.code).toBe("NOT_FOUND");
    expect(missing.error?.message).toContain("HTTP 404");
    const broken = await fetchUrl(`${server.url}/500`);
    expect(broken.error?.code).toBe("EXECUTION_ERROR");
    expect(broken.error?.message).toContain("HTTP 500");
  });

  test("a page that never ends stops at the size cap: partial, never more bytes than the cap", async () => {
    const capped = createToolRegistry({
      cwd: dir.dir,
      preset: ["read"],
      tools: [webFetchTool],
      web: createWebAccess({ settings: { allowHosts: ["127.0.0.1"] }, limits: { maxBytes: 1_000_000 } }),
    });
    const r = await fetchUrl(`${server.url}/endless`, capped);
    expect(r.status).toBe("partial");
    const [page] = r.data.pages as { bytes: number; truncated: boolean }[];
    expect(page.truncated).toBe(true);
    expect(page.bytes).toBe(1_000_000);
    expect(r.text).toContain("only the first");
  });

  test("a gzip bomb stops at the cap on the decoded bytes", async () => {
    const capped = createToolRegistry({
      cwd: dir.dir,
      preset: ["read"],
      tools: [webFetchTool],
      web: createWebAccess({ settings: { allowHosts: ["127.0.0.1"] }, limits: { maxBytes: 2_000_000 } }),
    });
    const r = await fetchUrl(`${server.url}/bomb`, capped);
    expect(r.status).toBe("partial");
    const [page] = r.data.pages as { bytes: number }[];
    expect(page.bytes).toBe(2_000_000);
  });

  test("a slow drip ends at the deadline with TIMEOUT", async () => {
    const slow = createToolRegistry({
      cwd: dir.dir,
      preset: ["read"],
      tools: [webFetchTool],
      web: createWebAccess({ settings: { allowHosts: ["127.0.0.1"] }, limits: { timeoutMs: 1500 } }),
    });
    const r = await fetchUrl(`${server.url}/drip`, slow);
    expect(r.status).toBe("error");
    expect(r.error?.code).toBe("TIMEOUT");
    expect(r.error?.message).toContain("did not finish within");
  });
});
