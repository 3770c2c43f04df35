/** The trust question put to the person at the terminal: one line, "y" or "yes" (any case) trusts. */
export function askOnTerminal(
  input: NodeJS.ReadableStream,
  output: NodeJS.WritableStream,
): (question: string) => Promise<boolean> {
  return async (question) => {
    output.write(question);
    return /^y(es)?$/i.test((await readAnswer(input)).trim());
  };
}

async function readAnswer(input: NodeJS.ReadableStream): Promise<string> {
  const { createInterface } = await import("node:readline");
  const rl = createInterface({ input, terminal: false });
  try {
    return await new Promise<string>((done) => {
      rl.once("line", done);
      rl.once("close", () => done(""));
    });
  } finally {
    rl.close();
  }
}
