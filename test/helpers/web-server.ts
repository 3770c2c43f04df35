/**
 * A loopback HTTP server for the web fetch tests: saved real-world pages (test/fixtures/web), a
 * 10 MB page, a windows-1252 page served without a charset, a JSON API, a PDF, redirect chains
 * (same host, a loop, to the cloud metadata address), a slow drip, a page that never ends, a gzip
 * bomb, 404 and 500. `served` counts the requests per path, so a test can tell a cached read.
 */
import { readFileSync } from "node:fs";
import { createServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { gzipSync } from "node:zlib";

const FIXTURES = join(import.meta.dir, "..", "fixtures", "web");
export const fixture = (name: string) => readFileSync(join(FIXTURES, name));

export interface WebServer extends AsyncDisposable {
  /** http://127.0.0.1:PORT */
  url: string;
  port: number;
  served: Map<string, number>;
  close(): Promise<void>;
}

/** A page of about `bytes` bytes: the documentation page's body repeated. */
export function bigPage(bytes: number): Buffer {
  const section = `<section><h2>Part</h2>${"<p>Mutable history with obsolescence markers keeps every rewritten changeset. </p>".repeat(100)}</section>\n`;
  const head = "<!doctype html><html><head><title>Big page</title></head><body><main>";
  const tail = "</main></body></html>";
  const count = Math.floor((bytes - head.length - tail.length) / section.length);
  return Buffer.from(head + section.repeat(count) + tail);
}

/** A one-page PDF whose text is `text` (ASCII), with a correct cross-reference table. */
export function tinyPdf(text: string): Buffer {
  const stream = `BT /F1 18 Tf 72 720 Td (${text}) Tj ET`;
  const objects = [
    "<< /Type /Catalog /Pages 2 0 R >>",
    "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
    "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>",
    `<< /Length ${stream.length} >>\nstream\n${stream}\nendstream`,
    "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
  ];
  let out = "%PDF-1.4\n";
  const offsets: number[] = [];
  objects.forEach((body, i) => {
    offsets.push(out.length);
    out += `${i + 1} 0 obj\n${body}\nendobj\n`;
  });
  const xref = out.length;
  out += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n${offsets.map((o) => `${String(o).padStart(10, "0")} 00000 n \n`).join("")}`;
  out += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(out, "latin1");
}

export const BIG_PAGE_BYTES = 10_000_000;

export async function startWebServer(): Promise<WebServer> {
  const pages: Record<string, [string, Buffer]> = {
    "/docs": ["text/html; charset=utf-8", fixture("docs-mercurial.html")],
    "/github": ["text/html; charset=utf-8", fixture("github-repo-page.html")],
    "/changelog.md": ["text/markdown; charset=utf-8", fixture("changelog-ai.md")],
    "/latin": ["text/html", fixture("lemonde-windows-1252.html")],
    "/big": ["text/html; charset=utf-8", bigPage(BIG_PAGE_BYTES)],
    "/api/issue.json": [
      "application/json",
      Buffer.from(
        JSON.stringify({ number: 29, title: "The web", state: "open", labels: [{ name: "tools" }] }, null, 2),
      ),
    ],
    "/paper.pdf": ["application/pdf", tinyPdf("Obsolescence markers explained")],
    "/image.png": ["image/png", Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13])],
  };
  const redirects: Record<string, string> = {
    "/redirect/1": "/redirect/2",
    "/redirect/2": "/redirect/3",
    "/redirect/3": "/docs",
    "/loop": "/loop",
    "/to-metadata": "http://169.254.169.254/latest/meta-data/",
    "/to-other-host": "https://docs.example.org/moved",
  };
  // 64 MB of zeros in about 64 KB.
  const bomb = gzipSync(Buffer.alloc(64 * 1024 * 1024));
  const served = new Map<string, number>();
  const open = new Set<ServerResponse>();
  const server = createServer((req, res) => {
    const path = (req.url ?? "/").split("?")[0];
    served.set(path, (served.get(path) ?? 0) + 1);
    open.add(res);
    res.on("close", () => open.delete(res));
    if (pages[path]) {
      const [type, body] = pages[path];
      res.writeHead(200, { "content-type": type, "content-length": body.length });
      res.end(body);
    } else if (redirects[path]) {
      res.writeHead(302, { location: redirects[path] });
      res.end();
    } else if (path === "/gzip-docs") {
      const body = gzipSync(fixture("docs-mercurial.html"));
      res.writeHead(200, {
        "content-type": "text/html; charset=utf-8",
        "content-encoding": "gzip",
        "content-length": body.length,
      });
      res.end(body);
    } else if (path === "/bomb") {
      res.writeHead(200, { "content-type": "text/plain", "content-encoding": "gzip", "content-length": bomb.length });
      res.end(bomb);
    } else if (path === "/drip") {
      // One byte now and then, forever: only the fetch's deadline ends it.
      res.writeHead(200, { "content-type": "text/plain" });
      const timer = setInterval(() => res.write("."), 100);
      res.on("close", () => clearInterval(timer));
    } else if (path === "/endless") {
      // Text as fast as the reader takes it, never ending: only the size cap ends it.
      res.writeHead(200, { "content-type": "text/plain" });
      const chunk = Buffer.from("endless line of text\n".repeat(3000));
      const pump = () => {
        while (!res.destroyed && res.write(chunk));
      };
      res.on("drain", pump);
      pump();
    } else if (path === "/500") {
      res.writeHead(500, { "content-type": "text/plain" });
      res.end("boom");
    } else {
      res.writeHead(404, { "content-type": "text/plain" });
      res.end("not here");
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  const close = async () => {
    for (const res of open) res.destroy();
    server.closeAllConnections?.();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  return { url: `http://127.0.0.1:${port}`, port, served, close, [Symbol.asyncDispose]: close };
}
