/**
 * What scripts/build.ts writes into a compiled gong (`bun build --define`): the release file this
 * binary is (`gong-linux-x64`, …) and, when the release was built with `--release-url`, the address
 * it updates from. Both are undefined when gong runs from source (bun cli.ts, deno, the SDK).
 */
declare const GONG_BUILD_RELEASE_FILE: string | undefined;
declare const GONG_BUILD_RELEASE_URL: string | undefined;

// `typeof` of an identifier that was never defined is "undefined", without a ReferenceError.
export const BUILT_RELEASE_FILE: string | undefined =
  typeof GONG_BUILD_RELEASE_FILE === "string" ? GONG_BUILD_RELEASE_FILE : undefined;
export const BUILT_RELEASE_URL: string | undefined =
  typeof GONG_BUILD_RELEASE_URL === "string" ? GONG_BUILD_RELEASE_URL : undefined;

/** The names scripts/build.ts defines. */
export const BUILD_DEFINES = { file: "GONG_BUILD_RELEASE_FILE", url: "GONG_BUILD_RELEASE_URL" } as const;
