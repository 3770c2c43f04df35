/**
 * The platforms gong is released for: Bun's compile targets, the file each is written to, and what
 * a correct binary for it looks like (format, CPU, and for Linux the C library's loader and the
 * libraries it may need). Alpine and other musl systems get the -musl builds.
 */
import type { Arch } from "./executable-format.ts";

export type Libc = "glibc" | "musl";

export interface ReleaseTarget {
  /** Bun's --target. */
  bun: string;
  /** File name in the release directory. */
  file: string;
  os: "linux" | "darwin" | "windows";
  arch: Arch;
  libc?: Libc;
}

export const RELEASE_TARGETS: readonly ReleaseTarget[] = [
  { bun: "bun-linux-x64", file: "gong-linux-x64", os: "linux", arch: "x64", libc: "glibc" },
  { bun: "bun-linux-arm64", file: "gong-linux-arm64", os: "linux", arch: "arm64", libc: "glibc" },
  { bun: "bun-linux-x64-musl", file: "gong-linux-x64-musl", os: "linux", arch: "x64", libc: "musl" },
  { bun: "bun-linux-arm64-musl", file: "gong-linux-arm64-musl", os: "linux", arch: "arm64", libc: "musl" },
  { bun: "bun-darwin-x64", file: "gong-darwin-x64", os: "darwin", arch: "x64" },
  { bun: "bun-darwin-arm64", file: "gong-darwin-arm64", os: "darwin", arch: "arm64" },
  { bun: "bun-windows-x64", file: "gong-windows-x64.exe", os: "windows", arch: "x64" },
];

const CPU = { x64: "x86_64", arm64: "aarch64" } as const;

/** The program interpreter a Linux binary must ask for. */
export function loaderOf(arch: Arch, libc: Libc): string {
  if (libc === "musl") return `/lib/ld-musl-${CPU[arch]}.so.1`;
  return arch === "x64" ? "/lib64/ld-linux-x86-64.so.2" : "/lib/ld-linux-aarch64.so.1";
}

/** The shared libraries a Linux binary may need: the C library's own, and for musl the C++ runtime (Alpine: apk add libstdc++). */
export function allowedLibraries(arch: Arch, libc: Libc): string[] {
  if (libc === "musl") return [`libc.musl-${CPU[arch]}.so.1`, "libstdc++.so.6", "libgcc_s.so.1"];
  return [
    "libc.so.6",
    "libm.so.6",
    "libpthread.so.0",
    "libdl.so.2",
    loaderOf(arch, libc).slice(loaderOf(arch, libc).lastIndexOf("/") + 1),
  ];
}
