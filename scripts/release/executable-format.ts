/**
 * What an executable file is built for, read from its headers (no readelf needed): ELF (Linux) with
 * its program interpreter and needed libraries, Mach-O (macOS) and PE (Windows) with their CPU. The
 * release checks use it for every binary, including those this machine cannot run.
 */
import { closeSync, openSync, readSync } from "node:fs";

export type Arch = "x64" | "arm64";

export type ExecutableFormat =
  | { kind: "elf"; arch: Arch | "other"; interpreter: string | null; needed: string[] }
  | { kind: "macho"; arch: Arch | "other" }
  | { kind: "pe"; arch: Arch | "other" }
  | { kind: "unknown" };

const ELF_MACHINES: Record<number, Arch> = { 62: "x64", 183: "arm64" };
const MACHO_CPUS: Record<number, Arch> = { 16777223: "x64", 16777228: "arm64" };
const PE_MACHINES: Record<number, Arch> = { 34404: "x64", 43620: "arm64" };

const PT_LOAD = 1;
const PT_DYNAMIC = 2;
const PT_INTERP = 3;
const DT_NEEDED = 1;
const DT_STRTAB = 5;

export function readExecutableFormat(path: string): ExecutableFormat {
  const fd = openSync(path, "r");
  try {
    const at = (offset: number, length: number): Buffer => {
      const buf = Buffer.alloc(length);
      const n = readSync(fd, buf, 0, length, offset);
      return buf.subarray(0, n);
    };
    const head = at(0, 64);
    if (head.length >= 20 && head.readUInt32BE(0) === 0x7f454c46) return readElf(head, at);
    if (head.length >= 8 && head.readUInt32LE(0) === 0xfeedfacf)
      return { kind: "macho", arch: MACHO_CPUS[head.readUInt32LE(4)] ?? "other" };
    if (head.length >= 64 && head.toString("latin1", 0, 2) === "MZ") {
      const pe = head.readUInt32LE(0x3c);
      const sig = at(pe, 6);
      if (sig.length === 6 && sig.toString("latin1", 0, 4) === "PE\0\0")
        return { kind: "pe", arch: PE_MACHINES[sig.readUInt16LE(4)] ?? "other" };
    }
    return { kind: "unknown" };
  } finally {
    closeSync(fd);
  }
}

/** 64-bit little-endian ELF: the machine, PT_INTERP, and the DT_NEEDED names from the dynamic section. */
function readElf(head: Buffer, at: (offset: number, length: number) => Buffer): ExecutableFormat {
  const arch = ELF_MACHINES[head.readUInt16LE(18)] ?? "other";
  if (head[4] !== 2 || head[5] !== 1) return { kind: "elf", arch, interpreter: null, needed: [] };
  const phoff = Number(head.readBigUInt64LE(32));
  const phentsize = head.readUInt16LE(54);
  const phnum = head.readUInt16LE(56);
  const table = at(phoff, phentsize * phnum);
  const segments = Array.from({ length: phnum }, (_, i) => {
    const o = i * phentsize;
    return {
      type: table.readUInt32LE(o),
      offset: Number(table.readBigUInt64LE(o + 8)),
      vaddr: Number(table.readBigUInt64LE(o + 16)),
      filesz: Number(table.readBigUInt64LE(o + 32)),
    };
  });
  const interp = segments.find((s) => s.type === PT_INTERP);
  const interpreter = interp ? at(interp.offset, interp.filesz).toString("latin1").replace(/\0+$/, "") : null;

  const dynamic = segments.find((s) => s.type === PT_DYNAMIC);
  if (!dynamic) return { kind: "elf", arch, interpreter, needed: [] };
  const entries = at(dynamic.offset, dynamic.filesz);
  const neededOffsets: number[] = [];
  let strtab = 0;
  for (let o = 0; o + 16 <= entries.length; o += 16) {
    const tag = Number(entries.readBigInt64LE(o));
    const value = Number(entries.readBigUInt64LE(o + 8));
    if (tag === 0) break;
    if (tag === DT_NEEDED) neededOffsets.push(value);
    else if (tag === DT_STRTAB) strtab = value;
  }
  // DT_STRTAB is an address: the loadable segment holding it says where it lies in the file.
  const load = segments.find((s) => s.type === PT_LOAD && strtab >= s.vaddr && strtab < s.vaddr + s.filesz);
  const strtabOffset = load ? strtab - load.vaddr + load.offset : strtab;
  const needed = neededOffsets.map((off) => {
    const bytes = at(strtabOffset + off, 256);
    const end = bytes.indexOf(0);
    return bytes.toString("latin1", 0, end === -1 ? bytes.length : end);
  });
  return { kind: "elf", arch, interpreter, needed };
}
