import { describe, expect, test } from "bun:test";
import { splitCommand } from "../../lib/setup/shell-split.ts";

const texts = (cmd: string) => splitCommand(cmd).commands.map((c) => c.text);

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
  });
  test("subshells, groups and process substitution are read inside", () => {
    expect(texts("(cd a && make) && { ls; pwd; }")).toEqual(["cd a", "make", "ls", "pwd"]);
    expect(texts("diff <(sort a) <(sort b)")).toEqual(["sort a", "sort b", "diff $(…) $(…)"]);
  });
  test("redirections are set apart; writing one is marked, /dev/null and descriptors are not", () => {
    const [c] = splitCommand("ls -la > out.txt 2>&1").commands;
    expect(c.text).toBe("ls -la");
    expect(c.fullText).toBe("ls -la >out.txt");
    expect(c.writesFile).toBe(true);
    const [quiet] = splitCommand("grep x file 2>/dev/null >&2 < input").commands;
    expect(quiet.text).toBe("grep x file");
    expect(quiet.writesFile).toBe(false);
    expect(splitCommand("cat a &>> log").commands[0].writesFile).toBe(true);
  });
  test("wrappers timeout, nice, nohup, env and time are stripped", () => {
    expect(texts("timeout -s KILL 10 nice -n 5 nohup env -i A=1 B=2 time -p npm test")).toEqual(["npm test"]);
    expect(texts("env")).toEqual(["env"]);
  });
  test("compound command keywords are dropped; loop headers and here-documents make it opaque", () => {
    expect(texts("if test -f a; then rm a; else echo no; fi")).toEqual(["test -f a", "rm a", "echo no"]);
    expect(splitCommand("for f in *; do rm $f; done").opaque).toContain("for");
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
  });

  test("comments and line continuations", () => {
    expect(texts("ls # && rm -rf /\npwd")).toEqual(["ls", "pwd"]);
    expect(texts("npm \\\n  test")).toEqual(["npm test"]);
  });
});
