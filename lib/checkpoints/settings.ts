/**
 * Checkpoint settings (the `checkpoints` key of settings.json, `checkpoints` of createSession):
 * what one checkpoint may cover and how much the store may keep.
 */

export interface CheckpointSettings {
  /** Files larger than this are not stored; the checkpoint lists them as skipped and rewind leaves them alone. */
  maxFileBytes: number;
  /** Bytes one checkpoint may cover; files past it (in path order) are skipped. */
  maxCheckpointBytes: number;
  /** Files one checkpoint may cover; files past it (in path order) are skipped. */
  maxFiles: number;
  /** Checkpoints older than this are pruned by gc. */
  retentionDays: number;
  /** gc prunes the oldest checkpoints until the store holds at most this. */
  maxStoreBytes: number;
}

export const DEFAULT_CHECKPOINT_SETTINGS: CheckpointSettings = {
  maxFileBytes: 10 * 1024 * 1024,
  maxCheckpointBytes: 512 * 1024 * 1024,
  maxFiles: 50_000,
  retentionDays: 30,
  maxStoreBytes: 4 * 1024 * 1024 * 1024,
};

/** Defaults with the given keys on top; a key with a wrong type is an error naming it. */
export function checkpointSettings(input: Partial<Record<keyof CheckpointSettings, unknown>> = {}): CheckpointSettings {
  const out = { ...DEFAULT_CHECKPOINT_SETTINGS };
  for (const key of Object.keys(DEFAULT_CHECKPOINT_SETTINGS) as (keyof CheckpointSettings)[]) {
    const value = input[key];
    if (value === undefined) continue;
    if (typeof value !== "number" || !(value >= 0))
      throw new Error(`checkpoints.${key} must be a number ≥ 0 (got ${JSON.stringify(value)}).`);
    out[key] = value;
  }
  return out;
}
