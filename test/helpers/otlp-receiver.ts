/**
 * An OTLP/HTTP receiver on loopback for telemetry tests. What arrives is decoded with the official
 * opentelemetry-proto definitions — the protobufjs module generated from them that
 * @opentelemetry/otlp-transformer 0.57.2 ships (installed as the dev dependency
 * `otlp-proto-definitions`): HTTP/protobuf bodies with `decode`, HTTP/JSON bodies with `fromObject`
 * (which rejects what the schema does not allow). It can answer 200, 500, or never.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { createRequire } from "node:module";

const proto = createRequire(import.meta.url)("otlp-proto-definitions/build/src/generated/root.js").opentelemetry.proto;

const MESSAGES = {
  traces: proto.collector.trace.v1.ExportTraceServiceRequest,
  metrics: proto.collector.metrics.v1.ExportMetricsServiceRequest,
  logs: proto.collector.logs.v1.ExportLogsServiceRequest,
} as const;
export type SignalName = keyof typeof MESSAGES;

export interface Received {
  signal: SignalName;
  contentType: string;
  /** The raw body (to check that a text never left gong). */
  raw: Buffer;
  /** The request as the schema reads it (protobufjs toObject: camelCase, longs as numbers). */
  body: any;
}

export type Attributes = Record<string, unknown>;

export interface FlatSpan {
  name: string;
  traceId: string;
  spanId: string;
  parentSpanId: string;
  kind: number;
  status: { code?: number; message?: string };
  attributes: Attributes;
}

export interface FlatLog {
  eventName: string;
  body: unknown;
  attributes: Attributes;
}

export interface OtlpReceiver {
  url: string;
  received: Received[];
  /** Requests that reached the server, answered or not. */
  requests: number;
  spans(): FlatSpan[];
  /** Metric name → its data points' attributes and values. */
  metrics(): Map<string, { attributes: Attributes; value: number; count?: number }[]>;
  logs(): FlatLog[];
  close(): Promise<void>;
}

export async function startOtlpReceiver(answer: "ok" | "fail" | "hang" = "ok"): Promise<OtlpReceiver> {
  const received: Received[] = [];
  const hanging: ServerResponse[] = [];
  let requests = 0;
  const server = createServer(async (req: IncomingMessage, res: ServerResponse) => {
    requests++;
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks);
    if (answer === "hang") {
      hanging.push(res);
      return;
    }
    if (answer === "fail") {
      res.writeHead(500, { "content-type": "text/plain" }).end("collector broke");
      return;
    }
    const signal = (req.url ?? "").replace(/^\/v1\//, "") as SignalName;
    const message = MESSAGES[signal];
    const contentType = req.headers["content-type"] ?? "";
    if (!message) {
      res.writeHead(404).end();
      return;
    }
    const decoded = contentType.includes("json")
      ? message.fromObject(JSON.parse(raw.toString("utf8")))
      : message.decode(raw);
    received.push({
      signal,
      contentType,
      raw,
      body: message.toObject(decoded, { longs: Number, bytes: String, defaults: false, arrays: true }),
    });
    res.writeHead(200, {
      "content-type": contentType.includes("json") ? "application/json" : "application/x-protobuf",
    });
    res.end(contentType.includes("json") ? "{}" : Buffer.alloc(0));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  const of = (signal: SignalName) => received.filter((r) => r.signal === signal).map((r) => r.body);
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    get requests() {
      return requests;
    },
    spans: () =>
      of("traces").flatMap((b) =>
        (b.resourceSpans ?? []).flatMap((rs: any) =>
          (rs.scopeSpans ?? []).flatMap((ss: any) =>
            (ss.spans ?? []).map((s: any) => ({
              name: s.name,
              traceId: s.traceId ?? "",
              spanId: s.spanId ?? "",
              parentSpanId: s.parentSpanId ?? "",
              kind: s.kind ?? 0,
              status: s.status ?? {},
              attributes: flatten(s.attributes),
            })),
          ),
        ),
      ),
    metrics: () => {
      const out = new Map<string, { attributes: Attributes; value: number; count?: number }[]>();
      for (const b of of("metrics"))
        for (const rm of b.resourceMetrics ?? [])
          for (const sm of rm.scopeMetrics ?? [])
            for (const m of sm.metrics ?? []) {
              const points = m.sum?.dataPoints ?? m.histogram?.dataPoints ?? m.gauge?.dataPoints ?? [];
              const list = out.get(m.name) ?? [];
              for (const p of points)
                list.push({
                  attributes: flatten(p.attributes),
                  value: p.asDouble ?? p.asInt ?? p.sum ?? 0,
                  ...(p.count !== undefined ? { count: p.count } : {}),
                });
              out.set(m.name, list);
            }
      return out;
    },
    logs: () =>
      of("logs").flatMap((b) =>
        (b.resourceLogs ?? []).flatMap((rl: any) =>
          (rl.scopeLogs ?? []).flatMap((sl: any) =>
            (sl.logRecords ?? []).map((r: any) => ({
              eventName: r.eventName ?? "",
              body: r.body ? anyValue(r.body) : undefined,
              attributes: flatten(r.attributes),
            })),
          ),
        ),
      ),
    async close() {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function flatten(attributes: { key: string; value: any }[] | undefined): Attributes {
  return Object.fromEntries((attributes ?? []).map((a) => [a.key, anyValue(a.value)]));
}

function anyValue(v: any): unknown {
  if (v === undefined || v === null) return undefined;
  if ("stringValue" in v) return v.stringValue;
  if ("intValue" in v) return Number(v.intValue);
  if ("doubleValue" in v) return v.doubleValue;
  if ("boolValue" in v) return v.boolValue;
  if ("arrayValue" in v) return (v.arrayValue.values ?? []).map(anyValue);
  if ("kvlistValue" in v) return flatten(v.kvlistValue.values);
  return v;
}
