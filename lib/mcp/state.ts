/**
 * Where an MCP server's connection stands. A leaf of its own: the manager's public status names it
 * without pulling in the connection, whose types come from the MCP SDK (the SDK's published type
 * declarations must not need that package).
 */
export type McpServerState = "disabled" | "pending" | "connecting" | "connected" | "failed";
