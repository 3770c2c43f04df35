/**
 * Serialises the read-modify-write of one file inside this process, so two edits of the same file
 * issued at once apply one after the other instead of the second overwriting the first.
 */
const tails = new Map<string, Promise<unknown>>();

export async function withFileLock<T>(absolutePath: string, fn: () => Promise<T>): Promise<T> {
  const previous = tails.get(absolutePath) ?? Promise.resolve();
  const run = previous.then(fn, fn);
  const tail = run.catch(() => undefined);
  tails.set(absolutePath, tail);
  try {
    return await run;
  } finally {
    if (tails.get(absolutePath) === tail) tails.delete(absolutePath);
  }
}
