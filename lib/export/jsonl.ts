/**
 * The session's own lines: its header, then every readable entry of every branch in file order,
 * each line as gong writes it — a copy that any session reader (gong -r FILE included) can load.
 */
import { serializeEntry, serializeHeader } from "../store/format.ts";
import type { ExportSource } from "./source.ts";

export function* jsonlChunks(source: ExportSource): Generator<string> {
  yield `${serializeHeader(source.header)}\n`;
  for (const entry of source.all()) yield `${serializeEntry(entry)}\n`;
}
