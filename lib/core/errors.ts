/**
 * The errors a host turns into "you asked for something gong cannot do" (exit 2 on the command
 * line, an error response in a protocol), each host in its own words around the sentence.
 */

/** A request the host's own flags or arguments got wrong: one sentence naming the flag. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "UsageError";
  }
}

/** Settings, files or choices that cannot make a session (an unknown provider, a missing shell, a broken hook module). */
export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ConfigError";
  }
}
