/** Issue 26 (moved into lib/gate): a shell command split into its simple commands. */
import { describe, expect, test } from "bun:test";
import { readCommand, writtenText } from "../../lib/gate/shell/commands.ts";
import { splitCommand } from "../../lib/gate/shell/split.ts";

const texts = (cmd: string) => splitCommand(cmd).commands.map((c) => c.words.join(" "));
/** What rules judge: every command that is not a wrapper seen through. */
const judged = (cmd: string) =>
  readCommand(cmd)
    .commands.filter((c) => !c.transparent)
    .map(writtenText);

describe("issue 26: a shell command split into its simple commands", () => {
  test("operators && || ; | |& & and newlines separate commands", () => {
    expect(texts("cd src && ls")).toEqual(["cd src", "ls"]);
    expect(texts("a || b; c | d |& e & f\ng")).toEqual(["a", "b", "c", "d", "e", "f", "g"]);
  });
  test("quoting is respected: operators inside quotes are words", () => {
    expect(texts(`echo "a && b" 'c; d' e\\;f`)).toEqual(["echo a && b c; d e;f"]);
  });
  test("$( ) and backticks contribute their commands, the outer word reads $(…)", () => {
    expect(texts("echo $(rm -rf x) `touch y`")).toEqual(["rm -rf x", "touch y", "echo $(…) $(…)"]);
    expect(texts(`echo "now $(date)"`)).toEqual(["date", "echo now $(…)"]);
    expect(texts("echo $((1 + 2))")).toEqual(["echo $((1 + 2))"]);
    expect(texts("echo $(( $(rm q) + 1 ))")).toEqual(["rm q", "echo $(( $(rm q) + 1 ))"]);
  });
  test("subshells, groups and process substitution are read inside", () => {
    expect(texts("(cd a && make) && { ls; pwd; }")).toEqual(["cd a", "make", "ls", "pwd"]);
    expect(texts("diff <(sort a) <(sort b)")).toEqual(["sort a", "sort b", "diff $(…) $(…)"]);
  });
  test("redirections are set apart; writing one is marked, /dev/null and descriptors are not", () => {
    const [c] = splitCommand("ls -la > out.txt 2>&1").commands;
    expect(c.words).toEqual(["ls", "-la"]);
    expect(c.redirects).toEqual([">out.txt"]);
    expect(c.writesFile).toBe(true);
    const [quiet] = splitCommand("grep x file 2>/dev/null >&2 < input").commands;
    expect(quiet.words.join(" ")).toBe("grep x file");
    expect(quiet.writesFile).toBe(false);
    expect(splitCommand("cat a &>> log").commands[0].writesFile).toBe(true);
    // A redirection alone writes its file too.
    expect(splitCommand("ls; > out").commands[1]).toMatchObject({ words: [], writesFile: true });
  });
  test("wrappers timeout, nice, nohup, env and time are seen through: rules judge what they run", () => {
    expect(judged("timeout -s KILL 10 nice -n 5 nohup time -p npm test")).toEqual(["npm test"]);
    // Variables change what runs: env with them is judged as written, and what it runs too.
    expect(judged("env -i A=1 B=2 npm test")).toEqual(["env -i A=1 B=2 npm test", "npm test"]);
    expect(judged("env")).toEqual(["env"]);
  });
  test("compound command keywords are dropped; a for header is data; case and here-documents that run commands make it opaque", () => {
    expect(texts("if test -f a; then rm a; else echo no; fi")).toEqual(["test -f a", "rm a", "echo no"]);
    expect(texts("for f in *; do rm $f; done")).toEqual(["rm $f"]);
    expect(splitCommand("for f in *; do rm $f; done").opaque).toBeUndefined();
    expect(splitCommand("case $1 in a) rm x;; esac").opaque).toBeDefined();
    expect(texts("case $1 in a) rm x;; esac")).toContain("rm x");
    expect(splitCommand("cat <<EOF\n$(rm -rf /)\nEOF").opaque).toBe("a here-document that runs commands");
    expect(splitCommand("echo 'unterminated").opaque).toBe("an unterminated quote");
    expect(splitCommand("cat <<< 'hello'").opaque).toBeUndefined();
  });
  test("here-document bodies are data, skipped to their delimiter; what follows them is read", () => {
    expect(texts("cat <<EOF > notes\nrm -rf /\nEOF\ntouch after")).toEqual(["cat", "touch after"]);
    expect(texts("cat <<'X' | sh\n$(not run here)\nX\nls")).toEqual(["cat", "sh", "ls"]);
    expect(splitCommand("cat <<'X'\n$(literal)\nX").opaque).toBeUndefined();
    expect(texts("cat <<-END\n\tbody\n\tEND\npwd")).toEqual(["cat", "pwd"]);
    expect(splitCommand("cat <<EOF\nnever closed").opaque).toBe("an unterminated here-document");
    // The body is what the command reads: a shell reading it runs it.
    expect(splitCommand("bash <<'EOF'\nrm -rf /\nEOF").commands[0].stdin).toBe("rm -rf /\n");
    expect(splitCommand("sh <<< 'rm x'").commands[0]).toMatchObject({ words: ["sh"], stdin: "rm x" });
  });

  test("comments and line continuations", () => {
    expect(texts("ls # && rm -rf /\npwd")).toEqual(["ls", "pwd"]);
    expect(texts("npm \\\n  test")).toEqual(["npm test"]);
  });
});
