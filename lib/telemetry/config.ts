/**
 * What telemetry a run asks for, from the standard OpenTelemetry variables and the `telemetry`
 * settings: per signal (traces, metrics, logs) whether it is exported, where and how; whether
 * prompts, tool arguments and tool outputs may be included (off unless asked, as Claude Code's
 * OTEL_LOG_USER_PROMPTS, OTEL_LOG_TOOL_DETAILS and OTEL_LOG_TOOL_CONTENT). The variables win over
 * the settings. A value gong cannot honour (gRPC, an exporter it lacks) turns that signal off with
 * a warning; nothing here throws.
 */
export type Signal = "traces" | "metrics" | "logs";
export const SIGNALS: readonly Signal[] = ["traces", "metrics", "logs"];
export type Protocol = "http/protobuf" | "http/json";

/** The `telemetry` settings key (settings files; a project's needs trust). */
export interface TelemetrySettings {
  /** The OTLP endpoint: the base URL, `/v1/traces`, `/v1/metrics`, `/v1/logs` are appended. */
  endpoint?: string;
  protocol?: Protocol;
  headers?: Record<string, string>;
  /** Signals to leave out (all three are exported when an endpoint is set). */
  traces?: boolean;
  metrics?: boolean;
  logs?: boolean;
  logUserPrompts?: boolean;
  logToolDetails?: boolean;
  logToolContent?: boolean;
}

export interface SignalExport {
  url: string;
  protocol: Protocol;
  headers: Record<string, string>;
  timeoutMillis: number;
}

export interface TelemetryConfig {
  signals: Partial<Record<Signal, SignalExport>>;
  serviceName: string;
  /** OTEL_RESOURCE_ATTRIBUTES. */
  resource: Record<string, string>;
  metricIntervalMillis: number;
  logsIntervalMillis: number;
  logUserPrompts: boolean;
  logToolDetails: boolean;
  logToolContent: boolean;
  warnings: string[];
}

type Env = Record<string, string | undefined>;

const PATHS: Record<Signal, string> = { traces: "v1/traces", metrics: "v1/metrics", logs: "v1/logs" };

/** The run's telemetry, or undefined when no signal is exported. */
export function telemetryConfig(env: Env, settings: TelemetrySettings = {}): TelemetryConfig | undefined {
  if (isTrue(env.OTEL_SDK_DISABLED)) return undefined;
  const warnings: string[] = [];
  const signals: TelemetryConfig["signals"] = {};
  const timeout = positive(env.OTEL_EXPORTER_OTLP_TIMEOUT) ?? 10_000;
  for (const signal of SIGNALS) {
    const upper = signal.toUpperCase();
    const chosen = exporterVar(env, signal);
    const own = env[`OTEL_EXPORTER_OTLP_${upper}_ENDPOINT`];
    const base = env.OTEL_EXPORTER_OTLP_ENDPOINT ?? settings.endpoint;
    if (chosen === "none" || (chosen === undefined && settings[signal] === false && !own)) continue;
    if (chosen !== undefined && chosen !== "otlp") {
      warnings.push(
        `OTEL_${upper}_EXPORTER=${chosen} is not supported by gong (only otlp and none); ${signal} are not exported.`,
      );
      continue;
    }
    if (!own && !base) {
      if (chosen === "otlp") signals[signal] = exportTo(`http://localhost:4318/${PATHS[signal]}`);
      continue;
    }
    const protocol =
      env[`OTEL_EXPORTER_OTLP_${upper}_PROTOCOL`] ?? env.OTEL_EXPORTER_OTLP_PROTOCOL ?? settings.protocol;
    if (protocol !== undefined && protocol !== "http/protobuf" && protocol !== "http/json") {
      warnings.push(
        `OTLP protocol '${protocol}' is not supported by gong (use http/protobuf or http/json); ${signal} are not exported.`,
      );
      continue;
    }
    signals[signal] = exportTo(own ?? `${base!.replace(/\/+$/, "")}/${PATHS[signal]}`, protocol);
  }
  function exportTo(url: string, protocol: string | undefined = "http/protobuf"): SignalExport {
    const headers = { ...settings.headers, ...parsePairs(env.OTEL_EXPORTER_OTLP_HEADERS) };
    return { url, protocol: protocol as Protocol, headers, timeoutMillis: timeout };
  }
  for (const signal of SIGNALS) {
    const headers = parsePairs(env[`OTEL_EXPORTER_OTLP_${signal.toUpperCase()}_HEADERS`]);
    if (signals[signal]) Object.assign(signals[signal]!.headers, headers);
  }
  if (Object.keys(signals).length === 0) return warnings.length ? emptyWith(warnings) : undefined;
  return {
    signals,
    serviceName: env.OTEL_SERVICE_NAME || "gong",
    resource: parsePairs(env.OTEL_RESOURCE_ATTRIBUTES),
    metricIntervalMillis: positive(env.OTEL_METRIC_EXPORT_INTERVAL) ?? 60_000,
    logsIntervalMillis: positive(env.OTEL_LOGS_EXPORT_INTERVAL) ?? 5_000,
    logUserPrompts: flag(env.OTEL_LOG_USER_PROMPTS, settings.logUserPrompts),
    logToolDetails: flag(env.OTEL_LOG_TOOL_DETAILS, settings.logToolDetails),
    logToolContent: flag(env.OTEL_LOG_TOOL_CONTENT, settings.logToolContent),
    warnings,
  };
}

/** No signal exported, but something to say about why. */
function emptyWith(warnings: string[]): TelemetryConfig {
  return {
    signals: {},
    serviceName: "gong",
    resource: {},
    metricIntervalMillis: 60_000,
    logsIntervalMillis: 5_000,
    logUserPrompts: false,
    logToolDetails: false,
    logToolContent: false,
    warnings,
  };
}

function exporterVar(env: Env, signal: Signal): string | undefined {
  const value = env[`OTEL_${signal.toUpperCase()}_EXPORTER`]?.trim().toLowerCase();
  return value ? value : undefined;
}

/** `k=v,k2=v2` with percent-encoded values (OTEL_EXPORTER_OTLP_HEADERS, OTEL_RESOURCE_ATTRIBUTES). */
function parsePairs(text: string | undefined): Record<string, string> {
  const pairs: Record<string, string> = {};
  for (const part of (text ?? "").split(",")) {
    const at = part.indexOf("=");
    if (at <= 0) continue;
    const key = part.slice(0, at).trim();
    try {
      pairs[key] = decodeURIComponent(part.slice(at + 1).trim());
    } catch {
      pairs[key] = part.slice(at + 1).trim();
    }
  }
  return pairs;
}

function isTrue(value: string | undefined): boolean {
  return value !== undefined && ["1", "true", "yes", "on"].includes(value.trim().toLowerCase());
}

/** A variable set to a truthy value turns it on, a falsy one off; unset, the setting decides. */
function flag(value: string | undefined, setting: boolean | undefined): boolean {
  if (value === undefined || value.trim() === "") return setting ?? false;
  return isTrue(value);
}

function positive(value: string | undefined): number | undefined {
  const n = Number(value);
  return value && Number.isFinite(n) && n > 0 ? n : undefined;
}
