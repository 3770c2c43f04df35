/**
 * An MCP tool result in the envelope (docs/conformance.md: 000 §1): text and embedded text
 * resources (also text sent as a base64 blob with a text MIME type) become `text`, resource links a
 * line naming them, images go to `data.images` (the model receives them as image parts), `isError`
 * becomes status "error", structured content goes to `data.structured`. What the model cannot see
 * (audio, binary resources) is named in the text, so it knows it was there.
 */
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { ImageData, Reply, ToolResponse } from "../envelope.ts";
import { firstLine } from "../output/cut.ts";

export function toEnvelope(reply: Reply, result: CallToolResult, server: string, tool: string): ToolResponse {
  const texts: string[] = [];
  const images: ImageData[] = [];
  for (const item of Array.isArray(result.content) ? result.content : []) {
    switch (item.type) {
      case "text":
        texts.push(item.text);
        break;
      case "image":
        images.push({ mimeType: item.mimeType, data: item.data });
        texts.push(`[image ${item.mimeType}, attached]`);
        break;
      case "audio":
        texts.push(`[audio ${item.mimeType}, ${base64Bytes(item.data)} bytes, not shown]`);
        break;
      case "resource": {
        const r = item.resource;
        const blob = String((r as { blob?: string }).blob ?? "");
        const decoded = "text" in r ? undefined : textOfBlob(blob, r.mimeType);
        if ("text" in r && typeof r.text === "string") texts.push(r.text);
        else if (decoded !== undefined) texts.push(decoded);
        else
          texts.push(
            `[resource ${r.uri}${r.mimeType ? ` (${r.mimeType})` : ""}, ${base64Bytes(blob)} bytes of binary data, not shown]`,
          );
        break;
      }
      case "resource_link":
        texts.push(`[resource link: ${item.name} ${item.uri}${item.description ? ` — ${item.description}` : ""}]`);
        break;
      default:
        texts.push(`[${String((item as { type?: unknown }).type)} content, not shown]`);
    }
  }
  const structured = result.structuredContent;
  let text = texts.join("\n");
  if (text === "" && structured) text = JSON.stringify(structured, null, 2);
  const data: Record<string, unknown> = { server, tool };
  if (structured) data.structured = structured;
  if (images.length > 0) data.images = images;
  const stats = { content_items: Array.isArray(result.content) ? result.content.length : 0 };
  if (result.isError) {
    const message = text.trim() || `MCP tool '${tool}' of server '${server}' reported an error without a message.`;
    return reply.fail("EXECUTION_ERROR", firstLine(message, 300), { data, text: message, stats });
  }
  return reply.success(data, text || "(the tool returned no content)", { stats });
}

/** Text sent base64-encoded (a blob whose MIME type is text, JSON, XML…): the text itself, when it is valid UTF-8. */
function textOfBlob(blob: string, mimeType: string | undefined): string | undefined {
  if (!mimeType || !/^text\/|[/+](json|xml|yaml|javascript|csv)\b/i.test(mimeType)) return undefined;
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(Uint8Array.from(atob(blob), (c) => c.charCodeAt(0)));
  } catch {
    return undefined;
  }
}

const base64Bytes = (b64: string) => Math.floor((b64.replace(/=+$/, "").length * 3) / 4);
