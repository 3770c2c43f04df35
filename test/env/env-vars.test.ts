import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { ALWAYS_KEPT, commandEnv, isSecretName } from "../../lib/env/env-vars.ts";
import { makeWorkspace, type Workspace } from "./helpers.ts";

let ws: Workspace;
beforeAll(() => {
  ws = makeWorkspace("envvars");
});
afterAll(() => ws.dispose());

const base = {
  PATH: process.env.PATH ?? "/usr/bin:/bin",
  HOME: "/home/someone",
  LANG: "C.UTF-8",
  LC_ALL: "C.UTF-8",
  GOPATH: "/go",
  FOO_API_KEY: "k1",
  github_token: "k2",
  DB_PASSWORD: "k3",
  AWS_SECRET: "k4",
  GCP_CREDENTIAL: "k5",
  API_KEY: "k6",
  TOKENIZER_PATH: "/models/tok",
  BASH_ENV: "/etc/startup.sh",
  PLAIN: "visible",
};

/** The variables a real command sees, as a map. */
async function seen(policy: "filtered" | "inherit" | "core" | "none", extra?: Record<string, string>): Promise<Record<string, string>> {
  const r = await ws.env({ envPolicy: policy, baseEnv: base }).exec("env", { env: extra });
  const vars: Record<string, string> = {};
  for (const line of r.stdout.split("\n")) {
    const eq = line.indexOf("=");
    if (eq > 0) vars[line.slice(0, eq)] = line.slice(eq + 1);
  }
  // bash itself adds a few (PWD, SHLVL, _): ignore those.
  for (const own of ["PWD", "SHLVL", "_", "OLDPWD"]) delete vars[own];
  return vars;
}

describe("environment variable filtering (004 §4.2)", () => {
  test("J.2 4.3 filtered: secrets dropped, PATH/HOME and ordinary variables kept", async () => {
    const vars = await seen("filtered");
    for (const secret of ["FOO_API_KEY", "github_token", "DB_PASSWORD", "AWS_SECRET", "GCP_CREDENTIAL", "API_KEY", "BASH_ENV"]) {
      expect(vars[secret]).toBeUndefined();
    }
    expect(vars).toMatchObject({ PATH: base.PATH, HOME: "/home/someone", LC_ALL: "C.UTF-8", PLAIN: "visible", TOKENIZER_PATH: "/models/tok" });
  });

  test("inherit passes everything", async () => {
    const vars = await seen("inherit");
    expect(vars).toMatchObject({ FOO_API_KEY: "k1", BASH_ENV: "/etc/startup.sh", PLAIN: "visible" });
  });

  test("core passes only the always-kept set", async () => {
    const vars = await seen("core");
    expect(Object.keys(vars).sort()).toEqual(["GOPATH", "HOME", "LANG", "LC_ALL", "PATH"]);
  });

  test("none passes only PATH", async () => {
    expect(Object.keys(await seen("none"))).toEqual(["PATH"]);
  });

  test("per-call variables are added on top of any policy", async () => {
    expect(await seen("none", { EXTRA: "1", MY_TOKEN: "explicit" })).toEqual({ PATH: base.PATH, EXTRA: "1", MY_TOKEN: "explicit" });
  });

  test("the default policy filters process.env-like input", () => {
    expect(commandEnv("filtered", { A_TOKEN: "x", B: "y", C: undefined })).toEqual({ B: "y" });
  });

  test("secret names match the suffix after an underscore or as the whole name", () => {
    expect(["OPENAI_API_KEY", "Slack_Token", "SECRET", "X_PASSWORD", "Y_CREDENTIAL"].every(isSecretName)).toBe(true);
    expect(["TOKENIZER", "MYTOKEN", "SECRETS_DIR", "PASSWORD_FILE"].some(isSecretName)).toBe(false);
    expect(ALWAYS_KEPT).toContain("TMPDIR");
  });
});
