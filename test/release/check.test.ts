/**
 * Issue 25, release checks: the header reader and the rules each release binary is held to, on
 * real executables of this machine and on Mach-O / PE headers written here; the wrong-platform
 * sentence (exit 2). The release build itself (`npm run build -- --all`) is too slow for the suite.
 */
import { expect, test } from "bun:test";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import {
  formatProblems,
  mismatchSentence,
  muslSearchPath,
  runnerFor,
  thisHost,
  type Host,
} from "../../scripts/release/check.ts";
import { readExecutableFormat } from "../../scripts/release/executable-format.ts";
import { allowedLibraries, RELEASE_TARGETS, type ReleaseTarget } from "../../scripts/release/targets.ts";
import { tempDir } from "../helpers/temp.ts";

const ROOT = join(import.meta.dir, "../..");
const target = (file: string) => RELEASE_TARGETS.find((t) => t.file === file) as ReleaseTarget;
const LINUX_X64: Host = { os: "linux", arch: "x64", libc: "glibc", pathEnv: "/nonexistent-gong-bin" };
const onX64Linux = process.platform === "linux" && process.arch === "x64";

/** A Mach-O 64 header (magic, CPU type) or a PE header (MZ, offset, PE\0\0, machine). */
function machO(cpu: number): Buffer {
  const b = Buffer.alloc(32);
  b.writeUInt32LE(0xfeedfacf, 0);
  b.writeUInt32LE(cpu, 4);
  return b;
}
function pe(machine: number): Buffer {
  const b = Buffer.alloc(0x100);
  b.write("MZ", 0, "latin1");
  b.writeUInt32LE(0x80, 0x3c);
  b.write("PE\0\0", 0x80, "latin1");
  b.writeUInt16LE(machine, 0x84);
  return b;
}

test("issue 25 release: seven platforms, glibc and musl for both Linux CPUs", () => {
  expect(RELEASE_TARGETS.map((t) => t.file)).toEqual([
    "gong-linux-x64",
    "gong-linux-arm64",
    "gong-linux-x64-musl",
    "gong-linux-arm64-musl",
    "gong-darwin-x64",
    "gong-darwin-arm64",
    "gong-windows-x64.exe",
  ]);
});

test.skipIf(!onX64Linux)(
  "issue 25 release: a glibc x64 binary's loader and libraries are read from its headers and checked",
  () => {
    // Bun itself is a glibc x64 build of the same runtime the compiled gong carries.
    const format = readExecutableFormat(process.execPath);
    expect(format).toMatchObject({ kind: "elf", arch: "x64", interpreter: "/lib64/ld-linux-x86-64.so.2" });
    expect(format.kind === "elf" && format.needed).toContain("libc.so.6");
    expect(formatProblems(target("gong-linux-x64"), format)).toEqual([]);
    expect(formatProblems(target("gong-linux-arm64"), format)).toEqual([
      "is built for x64, not arm64",
      "asks for the loader /lib64/ld-linux-x86-64.so.2, not /lib/ld-linux-aarch64.so.1",
      expect.stringContaining("needs ld-linux-x86-64.so.2"),
    ]);
    expect(formatProblems(target("gong-linux-x64-musl"), format)[0]).toBe(
      "asks for the loader /lib64/ld-linux-x86-64.so.2, not /lib/ld-musl-x86_64.so.1",
    );
    expect(formatProblems(target("gong-darwin-x64"), format)).toEqual([
      "is an ELF (Linux) file, not a Mach-O (macOS) file",
    ]);
  },
);

test("issue 25 release: Mach-O and PE headers say their CPU", () => {
  using dir = tempDir();
  const files = {
    mac: machO(0x0100000c),
    macIntel: machO(0x01000007),
    win: pe(0x8664),
    text: Buffer.from("#!/bin/sh\necho hi\n"),
  };
  for (const [name, bytes] of Object.entries(files)) writeFileSync(dir.path(name), bytes);
  expect(readExecutableFormat(dir.path("mac"))).toEqual({ kind: "macho", arch: "arm64" });
  expect(formatProblems(target("gong-darwin-arm64"), readExecutableFormat(dir.path("mac")))).toEqual([]);
  expect(formatProblems(target("gong-darwin-x64"), readExecutableFormat(dir.path("mac")))).toEqual([
    "is built for arm64, not x64",
  ]);
  expect(formatProblems(target("gong-darwin-x64"), readExecutableFormat(dir.path("macIntel")))).toEqual([]);
  expect(formatProblems(target("gong-windows-x64.exe"), readExecutableFormat(dir.path("win")))).toEqual([]);
  expect(readExecutableFormat(dir.path("text"))).toEqual({ kind: "unknown" });
});

test("issue 25 release: which binaries run here, and why the others do not", () => {
  expect(runnerFor(target("gong-linux-x64"), LINUX_X64)).toEqual([]);
  expect(runnerFor(target("gong-darwin-arm64"), LINUX_X64)).toBe("a darwin binary cannot run on linux");
  expect(runnerFor(target("gong-linux-arm64"), LINUX_X64)).toBe(
    "qemu-user-static is not installed (apt-get install qemu-user-static)",
  );
  const musl = runnerFor(target("gong-linux-x64-musl"), LINUX_X64);
  // Where musl's loader exists (Alpine, or the musl package) the build runs; elsewhere the reason names it.
  if (typeof musl === "string")
    expect(musl).toBe(
      "needs musl's loader /lib/ld-musl-x86_64.so.1 and a musl libstdc++, which this machine does not have",
    );
});

test("issue 37 defect 13: a musl loader alone does not make the musl build runnable: every library it needs must be where the loader looks", () => {
  using dir = tempDir();
  const root = dir.path("root");
  const put = (path: string, text = "") => {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  };
  const host: Host = { ...LINUX_X64, root };
  const musl = target("gong-linux-x64-musl");
  const needed = allowedLibraries("x64", "musl");
  // Debian's musl package: the loader and its path file, no C++ runtime.
  put("lib/ld-musl-x86_64.so.1");
  put("etc/ld-musl-x86_64.path", "/lib/x86_64-linux-musl\n/usr/lib/x86_64-linux-musl\n");
  // glibc's C++ runtime is not one musl's loader looks at.
  put("usr/lib/x86_64-linux-gnu/libstdc++.so.6");
  expect(runnerFor(musl, host, needed)).toBe(
    "needs libstdc++.so.6, libgcc_s.so.1 built for musl (where its loader looks: /lib/x86_64-linux-musl, /usr/lib/x86_64-linux-musl), which this machine does not have",
  );
  put("usr/lib/x86_64-linux-musl/libstdc++.so.6");
  put("usr/lib/x86_64-linux-musl/libgcc_s.so.1");
  expect(runnerFor(musl, host, needed)).toEqual([]);
  // Without a path file the loader looks in /lib, /usr/local/lib and /usr/lib (Alpine).
  using alpine = tempDir();
  for (const path of ["lib/ld-musl-x86_64.so.1", "usr/lib/libstdc++.so.6", "usr/lib/libgcc_s.so.1"]) {
    mkdirSync(dirname(join(alpine.dir, path)), { recursive: true });
    writeFileSync(join(alpine.dir, path), "");
  }
  expect(runnerFor(musl, { ...LINUX_X64, libc: "musl", root: alpine.dir }, needed)).toEqual([]);
});

test.skipIf(!onX64Linux || !existsSync("/lib/ld-musl-x86_64.so.1"))(
  "issue 37 defect 13: on this machine's musl loader (apt-get install musl), the musl build runs only with a musl libstdc++",
  () => {
    const runner = runnerFor(target("gong-linux-x64-musl"), thisHost(), allowedLibraries("x64", "musl"));
    const found = muslSearchPath("x64", "/").some((d) => existsSync(join(d, "libstdc++.so.6")));
    if (found) expect(runner).toEqual([]);
    else expect(runner).toEqual(expect.stringContaining("needs libstdc++.so.6"));
  },
);

test("issue 25 bad input: a binary for another platform is one sentence naming the one to download", () => {
  using dir = tempDir();
  writeFileSync(dir.path("gong"), machO(0x0100000c));
  expect(mismatchSentence("gong", readExecutableFormat(dir.path("gong")), LINUX_X64)).toBe(
    "gong is built for darwin arm64, but this machine is linux x64 (glibc): download gong-linux-x64 instead.",
  );
  const muslHost: Host = { ...LINUX_X64, libc: "musl" };
  expect(
    mismatchSentence(
      "gong",
      { kind: "elf", arch: "x64", interpreter: "/lib64/ld-linux-x86-64.so.2", needed: [] },
      muslHost,
    ),
  ).toBe(
    "gong is built for linux x64 (glibc), but this machine is linux x64 (musl): download gong-linux-x64-musl instead.",
  );
  expect(
    mismatchSentence(
      "gong",
      { kind: "elf", arch: "x64", interpreter: "/lib/ld-musl-x86_64.so.1", needed: [] },
      muslHost,
    ),
  ).toBeUndefined();
});

test.skipIf(!onX64Linux)(
  "issue 25 bad input: build.ts --check on a binary for another platform exits 2 with one sentence",
  () => {
    using dir = tempDir();
    writeFileSync(dir.path("gong-darwin-arm64"), machO(0x0100000c));
    const r = Bun.spawnSync(
      [process.execPath, join(ROOT, "scripts/build.ts"), "--check", dir.path("gong-darwin-arm64")],
      { stdout: "pipe", stderr: "pipe" },
    );
    expect(r.exitCode).toBe(2);
    expect(r.stdout.toString()).toBe("");
    expect(r.stderr.toString().trim().split("\n")).toHaveLength(1);
    expect(r.stderr.toString()).toMatch(
      /is built for darwin arm64, but this machine is linux x64 \((glibc|musl)\): download gong-linux-x64/,
    );
  },
);
