import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import {
  ALWAYS_KEPT,
  commandEnv,
  isSecretName,
  isWithheld,
  KNOWN_SECRETS,
  nameWords,
  secretPolicy,
} from "../../lib/env/env-vars.ts";
import { createClient } from "../../lib/llm/client.ts";
import { keyVariables } from "../../lib/llm/providers.ts";
import { TREE_MARKER } from "../../lib/env/process-trees.ts";
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
async function seen(
  policy: "filtered" | "inherit" | "core" | "none",
  extra?: Record<string, string>,
): Promise<Record<string, string>> {
  const r = await ws.env({ envPolicy: policy, baseEnv: base }).exec("env", { env: extra });
  const vars: Record<string, string> = {};
  for (const line of r.stdout.split("\n")) {
    const eq = line.indexOf("=");
    if (eq > 0) vars[line.slice(0, eq)] = line.slice(eq + 1);
  }
  // bash itself adds a few (PWD, SHLVL, _), the environment its process-tree marker: ignore those.
  for (const own of ["PWD", "SHLVL", "_", "OLDPWD", TREE_MARKER]) delete vars[own];
  return vars;
}

describe("environment variable filtering (004 §4.2)", () => {
  test("J.2 4.3 filtered: secrets dropped, PATH/HOME and ordinary variables kept", async () => {
    const vars = await seen("filtered");
    for (const secret of [
      "FOO_API_KEY",
      "github_token",
      "DB_PASSWORD",
      "AWS_SECRET",
      "GCP_CREDENTIAL",
      "API_KEY",
      "BASH_ENV",
    ]) {
      expect(vars[secret]).toBeUndefined();
    }
    expect(vars).toMatchObject({
      PATH: base.PATH,
      HOME: "/home/someone",
      LC_ALL: "C.UTF-8",
      PLAIN: "visible",
      TOKENIZER_PATH: "/models/tok",
    });
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
    expect(await seen("none", { EXTRA: "1", MY_TOKEN: "explicit" })).toEqual({
      PATH: base.PATH,
      EXTRA: "1",
      MY_TOKEN: "explicit",
    });
  });

  test("the default policy filters process.env-like input", () => {
    expect(commandEnv("filtered", { A_TOKEN: "x", B: "y", C: undefined })).toEqual({ B: "y" });
  });

  test("secret names: any word of the name is a secret word, case-insensitive", () => {
    const secret = [
      "OPENAI_API_KEY",
      "Slack_Token",
      "SECRET",
      "X_PASSWORD",
      "Y_CREDENTIAL",
      "AWS_SECRET_ACCESS_KEY",
      "AWS_ACCESS_KEY_ID",
      "STRIPE_SECRET_KEY",
      "ANTHROPIC_AUTH_TOKEN",
      "GITHUB_TOKEN",
      "SSH_PRIVATE_KEY",
      "SESSION_COOKIE",
      "DB_PASSWD",
      "DB_PASS",
      "GOOGLE_APPLICATION_CREDENTIALS",
      "SECRETS_DIR",
      "PASSWORD_FILE",
      "API_KEYS",
      "npm_config__authToken",
      "myApiKey",
      "SSH_AUTH_SOCK",
      "KEY",
      "rails-session",
      "OPENAI_APIKEY",
    ];
    const plain = [
      "TOKENIZER",
      "TOKENIZER_PATH",
      "MYTOKEN",
      "MONKEY",
      "KEYBOARD_LAYOUT",
      "GIT_AUTHOR_NAME",
      "AUTHOR",
      "XAUTHORITY",
      "PRIVATEER",
      "DBUS_SESSION_BUS_ADDRESS",
      "XDG_SESSION_TYPE",
      "PASSENGER_APP_ENV",
      "BYPASS_CACHE",
      "HOME",
      "PWD",
    ];
    expect(secret.filter((n) => !isSecretName(n))).toEqual([]);
    expect(plain.filter(isSecretName)).toEqual([]);
    expect(ALWAYS_KEPT).toContain("TMPDIR");
  });

  test("well-known secrets without a secret word are withheld too", () => {
    expect(KNOWN_SECRETS.filter((n) => !isSecretName(n))).toEqual([]);
    expect(["PGPASSWORD", "DATABASE_URL", "SENTRY_DSN"].every(isSecretName)).toBe(true);
  });

  test("name words split at separators and case changes", () => {
    expect(nameWords("npm_config__authToken")).toEqual(["NPM", "CONFIG", "AUTH", "TOKEN"]);
    expect(nameWords("AWS_SECRET_ACCESS_KEY")).toEqual(["AWS", "SECRET", "ACCESS", "KEY"]);
    expect(nameWords("my-app.key")).toEqual(["MY", "APP", "KEY"]);
  });

  test("an allow-list passes chosen secrets under filtered and core, exact names or PREFIX_*", async () => {
    const env = {
      PATH: "/bin",
      SSH_AUTH_SOCK: "/run/agent",
      NPM_TOKEN: "n",
      NPM_CONFIG_TOKEN: "c",
      AWS_SECRET_ACCESS_KEY: "a",
    };
    expect(commandEnv("filtered", env, {}, ["SSH_AUTH_SOCK", "NPM_*"])).toEqual({
      PATH: "/bin",
      SSH_AUTH_SOCK: "/run/agent",
      NPM_TOKEN: "n",
      NPM_CONFIG_TOKEN: "c",
    });
    expect(commandEnv("core", env, {}, ["SSH_AUTH_SOCK"])).toEqual({ PATH: "/bin", SSH_AUTH_SOCK: "/run/agent" });
    expect(commandEnv("none", env, {}, ["SSH_AUTH_SOCK"])).toEqual({ PATH: "/bin" });
  });

  test("a real command under filtered does not see AWS_SECRET_ACCESS_KEY or STRIPE_SECRET_KEY", async () => {
    const r = await ws
      .env({
        baseEnv: { PATH: base.PATH, AWS_SECRET_ACCESS_KEY: "aws-s3cret", STRIPE_SECRET_KEY: "sk_live_x", PLAIN: "p" },
      })
      .exec("env");
    expect(r.stdout).not.toContain("aws-s3cret");
    expect(r.stdout).not.toContain("sk_live_x");
    expect(r.stdout).toContain("PLAIN=p");
  });
});

describe("the secret policy is a value (issue 23: policies as values)", () => {
  const keyEnv = { PATH: base.PATH, CORP_ACCESS: "corp-k3y", LAB_ACCESS: "lab-k3y", PLAIN: "p" };

  test("a plain-named key variable is withheld from the commands of the environment whose policy names it, and only there", async () => {
    const corp = await ws.env({ baseEnv: keyEnv, secrets: secretPolicy(["CORP_ACCESS"]) }).exec("env");
    const lab = await ws.env({ baseEnv: keyEnv, secrets: secretPolicy(["LAB_ACCESS"]) }).exec("env");
    expect(corp.stdout).not.toContain("corp-k3y");
    expect(corp.stdout).toContain("LAB_ACCESS=lab-k3y");
    expect(lab.stdout).not.toContain("lab-k3y");
    expect(lab.stdout).toContain("CORP_ACCESS=corp-k3y");
  });

  test("creating LLM clients with different custom providers changes nothing global", async () => {
    createClient({ env: {}, providers: [{ id: "corp", baseUrl: "http://127.0.0.1:9/v1", apiKeyEnv: "CORP_ACCESS" }] });
    createClient({ env: {}, providers: [{ id: "lab", baseUrl: "http://127.0.0.1:9/v1", apiKeyEnv: "LAB_ACCESS" }] });
    expect(isWithheld("CORP_ACCESS")).toBe(false);
    expect(isWithheld("LAB_ACCESS")).toBe(false);
    const plain = await ws.env({ baseEnv: keyEnv }).exec("env");
    expect(plain.stdout).toContain("CORP_ACCESS=corp-k3y");
    expect(plain.stdout).toContain("LAB_ACCESS=lab-k3y");
  });

  test("the policy built from a client's providers names the presets' and the custom providers' key variables", () => {
    const policy = secretPolicy(
      keyVariables([{ id: "corp", baseUrl: "http://127.0.0.1:9/v1", apiKeyEnv: "CORP_ACCESS" }]),
    );
    expect(isWithheld("CORP_ACCESS", policy)).toBe(true);
    expect(isWithheld("ANTHROPIC_API_KEY", policy)).toBe(true);
    expect(isWithheld("LAB_ACCESS", policy)).toBe(false);
    // The always-kept set stays kept whatever a provider names.
    expect(secretPolicy(["PATH"]).keyVariables.has("PATH")).toBe(false);
  });
});
