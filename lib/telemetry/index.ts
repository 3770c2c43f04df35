/**
 * OpenTelemetry for gong, loaded only when the OTEL_* variables or the `telemetry` settings ask
 * for it: `startTelemetry` reads the config, starts the official SDK and returns a handle whose
 * `observe(session)` subscribes to a session's events and whose `shutdown()` sends what is queued
 * (bounded) before gong exits.
 */
import type { SessionEvent } from "../agent/vocabulary.ts";
import { telemetryConfig, type TelemetrySettings } from "./config.ts";

export type { TelemetrySettings } from "./config.ts";

export interface Telemetry {
  /** Hears this session's events (its children's come through it too). */
  observe(session: { subscribe(listener: (event: SessionEvent) => void): () => void }): void;
  shutdown(): Promise<void>;
}

/** The run's telemetry, or undefined when nothing is to be exported (each problem said once through `warn`). */
export async function startTelemetry(
  env: Record<string, string | undefined>,
  settings: TelemetrySettings | undefined,
  warn: (line: string) => void,
): Promise<Telemetry | undefined> {
  const config = telemetryConfig(env, settings);
  for (const line of config?.warnings ?? []) warn(`gong: warning: ${line}`);
  if (!config || Object.keys(config.signals).length === 0) return undefined;
  const [{ startSdk }, { telemetryObserver }] = await Promise.all([import("./sdk.ts"), import("./observer.ts")]);
  const instruments = startSdk(config, warn);
  const observer = telemetryObserver(instruments, config);
  const unsubscribers: Array<() => void> = [];
  return {
    observe(session) {
      unsubscribers.push(session.subscribe(observer));
    },
    async shutdown() {
      for (const stop of unsubscribers.splice(0)) stop();
      await instruments.shutdown();
    },
  };
}
