/**
 * Debian's Chromium, headless, for tests of pages gong writes: the DOM a real browser builds from
 * a file, with every background connection off and a fresh profile (removed after). Tests skip
 * with the reason when Chromium is absent (`.ci/run` installs it).
 */
import { existsSync } from "node:fs";
import { pathToFileURL } from "node:url";
import { tempDir } from "./temp.ts";

const CANDIDATES = ["/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome"];

/** The browser's path, or undefined when none is installed. */
export const chromiumPath: string | undefined = CANDIDATES.find((p) => existsSync(p));

export const NO_CHROMIUM = "Chromium is not installed (apt-get install chromium; .ci/run installs it)";

/** The DOM Chromium serialises after loading `file` with the network off (its --dump-dom). */
export async function renderedDom(file: string): Promise<string> {
  if (!chromiumPath) throw new Error(NO_CHROMIUM);
  using profile = tempDir("gong-chromium-");
  const proc = Bun.spawn(
    [
      chromiumPath,
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--disable-quic",
      `--user-data-dir=${profile.dir}`,
      "--dump-dom",
      pathToFileURL(file).href,
    ],
    { stdout: "pipe", stderr: "pipe", stdin: "ignore" },
  );
  try {
    const [dom, code] = await Promise.all([new Response(proc.stdout).text(), proc.exited]);
    if (code !== 0) throw new Error(`chromium exited with ${code}: ${await new Response(proc.stderr).text()}`);
    return dom;
  } finally {
    proc.kill("SIGKILL");
  }
}
