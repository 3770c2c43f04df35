/**
 * The official OpenTelemetry SDK set up for one run: a tracer, meter and logger provider, each
 * with the OTLP exporter its protocol names (HTTP/protobuf or HTTP/JSON) and a batching stage, so
 * the session only hands over values and never waits for the network. Nothing is registered
 * globally. An export that fails is said once; shutdown waits a bounded time, then drops the rest.
 */
import type { Logger, Meter, Tracer } from "@opentelemetry/api";
import { OTLPLogExporter as JsonLogExporter } from "@opentelemetry/exporter-logs-otlp-http";
import { OTLPLogExporter as ProtoLogExporter } from "@opentelemetry/exporter-logs-otlp-proto";
import { OTLPMetricExporter as JsonMetricExporter } from "@opentelemetry/exporter-metrics-otlp-http";
import { OTLPMetricExporter as ProtoMetricExporter } from "@opentelemetry/exporter-metrics-otlp-proto";
import { OTLPTraceExporter as JsonTraceExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { OTLPTraceExporter as ProtoTraceExporter } from "@opentelemetry/exporter-trace-otlp-proto";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { BatchLogRecordProcessor, LoggerProvider } from "@opentelemetry/sdk-logs";
import { MeterProvider, PeriodicExportingMetricReader } from "@opentelemetry/sdk-metrics";
import { BatchSpanProcessor, TracerProvider } from "@opentelemetry/sdk-trace";
import { VERSION } from "../version.ts";
import type { SignalExport, TelemetryConfig } from "./config.ts";

/** Spans and log records held while the endpoint is slow or away; past this, new ones are dropped. */
export const QUEUE_LIMIT = 2048;
/** How long the end of a run waits for the last exports. */
export const SHUTDOWN_BOUND_MS = 3_000;

export interface Instruments {
  tracer?: Tracer;
  meter?: Meter;
  logger?: Logger;
  /** Flushes what is queued (at most SHUTDOWN_BOUND_MS) and stops the exporters. */
  shutdown(): Promise<void>;
}

export function startSdk(config: TelemetryConfig, warn: (line: string) => void): Instruments {
  let warned = false;
  const failed = (signal: string, target: SignalExport, error: unknown) => {
    if (warned) return;
    warned = true;
    const why = error instanceof Error ? error.message : String(error ?? "unknown error");
    warn(
      `gong: warning: telemetry could not be exported to ${target.url} (${signal}: ${why}); the session goes on, what the endpoint did not take is dropped.`,
    );
  };
  const resource = resourceFromAttributes({
    "service.name": config.serviceName,
    "service.version": VERSION,
    ...config.resource,
  });
  const { traces, metrics, logs } = config.signals;
  const stops: Array<() => Promise<void>> = [];
  const instruments: Instruments = {
    async shutdown() {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const late = new Promise<"late">((resolve) => {
        timer = setTimeout(() => resolve("late"), SHUTDOWN_BOUND_MS);
      });
      const done = Promise.all(stops.map((stop) => stop().catch(() => {}))).then(() => "done" as const);
      const outcome = await Promise.race([done, late]);
      clearTimeout(timer);
      const target = traces ?? metrics ?? logs;
      if (outcome === "late" && target)
        failed("shutdown", target, new Error(`no answer within ${SHUTDOWN_BOUND_MS} ms`));
    },
  };
  if (traces) {
    const exporter = reporting(
      traces.protocol === "http/json"
        ? new JsonTraceExporter(options(traces))
        : new ProtoTraceExporter(options(traces)),
      (e) => failed("traces", traces, e),
    );
    const provider = new TracerProvider({
      resource,
      spanProcessors: [new BatchSpanProcessor({ exporter, maxQueueSize: QUEUE_LIMIT })],
    });
    instruments.tracer = provider.getTracer("gong", VERSION);
    stops.push(() => provider.shutdown());
  }
  if (metrics) {
    const exporter = reporting(
      metrics.protocol === "http/json"
        ? new JsonMetricExporter(options(metrics))
        : new ProtoMetricExporter(options(metrics)),
      (e) => failed("metrics", metrics, e),
    );
    const reader = new PeriodicExportingMetricReader({
      exporter,
      exportIntervalMillis: config.metricIntervalMillis,
      exportTimeoutMillis: Math.min(metrics.timeoutMillis, config.metricIntervalMillis),
    });
    const provider = new MeterProvider({ resource, readers: [reader] });
    instruments.meter = provider.getMeter("gong", VERSION);
    stops.push(() => provider.shutdown());
  }
  if (logs) {
    const exporter = reporting(
      logs.protocol === "http/json" ? new JsonLogExporter(options(logs)) : new ProtoLogExporter(options(logs)),
      (e) => failed("logs", logs, e),
    );
    const provider = new LoggerProvider({
      resource,
      processors: [
        new BatchLogRecordProcessor({
          exporter,
          maxQueueSize: QUEUE_LIMIT,
          scheduledDelayMillis: config.logsIntervalMillis,
        }),
      ],
    });
    instruments.logger = provider.getLogger("gong", VERSION);
    stops.push(() => provider.shutdown());
  }
  return instruments;
}

function options(target: SignalExport) {
  return { url: target.url, headers: target.headers, timeoutMillis: target.timeoutMillis };
}

interface ExportResult {
  code: number;
  error?: Error;
}

/** The exporter as it is, except that a failed export is told to `onFailure` before its callback. */
function reporting<T extends { export(items: never, done: (result: ExportResult) => void): void }>(
  exporter: T,
  onFailure: (error: unknown) => void,
): T {
  return new Proxy(exporter, {
    get(target, property) {
      if (property !== "export") {
        const value = Reflect.get(target, property, target);
        return typeof value === "function" ? value.bind(target) : value;
      }
      return (items: never, done: (result: ExportResult) => void) =>
        target.export(items, (result) => {
          // ExportResultCode.SUCCESS is 0.
          if (result.code !== 0) onFailure(result.error);
          done(result);
        });
    },
  });
}
