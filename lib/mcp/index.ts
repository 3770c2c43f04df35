/** MCP client: configuration, background connections, namespaced tools. */
export {
  loadMcpConfig,
  readMcpJson,
  serverFromOptions,
  McpConfigError,
  McpServerSettings,
  DEFAULT_STARTUP_TIMEOUT_MS,
  DEFAULT_TOOL_TIMEOUT_MS,
  type McpServerConfig,
  type McpServerSettingsEntry,
  type McpSettingsLayer,
  type LoadedMcpConfig,
} from "./config.ts";
export { McpManager, type McpServerEvent, type McpServerStatus } from "./manager.ts";
export type { McpServerState } from "./state.ts";
export { mcpToolName } from "./names.ts";
