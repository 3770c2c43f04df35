/**
 * Waiting in tests: for a condition, never for a fixed short window. The bound is generous (a
 * loaded 2-core machine may take seconds where a quiet one takes milliseconds); only a condition
 * that never comes costs the whole bound.
 */

/** The default bound for a condition to come true: long enough for a crowded CI machine. */
export const WAIT_BOUND_MS = 20_000;

/** Polls `condition` until it returns a truthy value, which is returned; throws naming `what` after `boundMs`. */
export async function until<T>(
  condition: () => T | Promise<T>,
  what: string,
  boundMs = WAIT_BOUND_MS,
): Promise<NonNullable<T>> {
  const deadline = Date.now() + boundMs;
  for (let delay = 5; ; delay = Math.min(delay * 2, 100)) {
    const value = await condition();
    if (value) return value as NonNullable<T>;
    if (Date.now() > deadline) throw new Error(`gave up after ${boundMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, delay));
  }
}

/** True once `condition` holds, false if it did not within the bound (for `expect(await eventually(…)).toBe(true)`). */
export async function eventually(
  condition: () => boolean | Promise<boolean>,
  boundMs = WAIT_BOUND_MS,
): Promise<boolean> {
  try {
    await until(condition, "a condition", boundMs);
    return true;
  } catch {
    return false;
  }
}
