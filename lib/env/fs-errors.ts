/** OS errors from file operations → ToolError with a code and a sentence the model can act on. */
import { ToolError } from "../envelope.ts";

export type FileAction = "read" | "write" | "list" | "stat" | "delete";

export function fsError(e: unknown, path: string, action: FileAction): ToolError {
  if (e instanceof ToolError) return e;
  const code = (e as { code?: string } | null)?.code;
  switch (code) {
    case "ENOENT":
      return new ToolError(
        "NOT_FOUND",
        `'${path}' does not exist. Check the path, or list the parent directory to see what is there.`,
      );
    case "ENOTDIR":
    case "EEXIST":
      if (action === "write") {
        return new ToolError(
          "INVALID_PARAM",
          `Cannot write '${path}': a part of the path before the last name is an existing file, not a directory. Choose another path.`,
        );
      }
      return new ToolError(
        "NOT_FOUND",
        `'${path}' does not exist: a part of the path before the last name is a file, not a directory.`,
      );
    case "EACCES":
    case "EPERM":
      return new ToolError(
        "PERMISSION_DENIED",
        `Permission denied: cannot ${action} '${path}' (${code}). Check the file's permissions.`,
      );
    case "EISDIR":
      return new ToolError(
        "IS_DIRECTORY",
        `'${path}' is a directory, not a file. ${action === "write" ? "Choose a file path inside it." : action === "delete" ? "Only files can be deleted." : "List it instead of reading it."}`,
      );
    case "ENAMETOOLONG":
      return new ToolError(
        "INVALID_PARAM",
        `'${path}' is too long for the file system (ENAMETOOLONG). Use a shorter path.`,
      );
    case "ELOOP":
      return new ToolError("INVALID_PARAM", `'${path}' is a symlink loop; it cannot be resolved.`);
    case "ENOSPC":
      return new ToolError(
        "EXECUTION_ERROR",
        `Cannot ${action} '${path}': no space left on the device (ENOSPC). Nothing was changed; free some space and retry.`,
      );
    case "EROFS":
      return new ToolError("EXECUTION_ERROR", `Cannot ${action} '${path}': the file system is read-only (EROFS).`);
    default: {
      const message = e instanceof Error ? e.message : String(e);
      return new ToolError("EXECUTION_ERROR", `Cannot ${action} '${path}': ${message}`);
    }
  }
}

/** True for the errors that just mean "nothing is there". */
export function isMissingError(e: unknown): boolean {
  const code = (e as { code?: string } | null)?.code;
  return code === "ENOENT" || code === "ENOTDIR";
}
