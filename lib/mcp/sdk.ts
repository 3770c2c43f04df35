/**
 * The official MCP SDK, loaded on first use: it takes a noticeable part of a second to load, and a
 * run without MCP servers should not pay for it.
 */
type Modules = [
  typeof import("@modelcontextprotocol/sdk/client/index.js"),
  typeof import("@modelcontextprotocol/sdk/types.js"),
  typeof import("@modelcontextprotocol/sdk/client/stdio.js"),
  typeof import("@modelcontextprotocol/sdk/client/streamableHttp.js"),
  typeof import("@modelcontextprotocol/sdk/client/sse.js"),
];

export interface McpSdk {
  Client: Modules[0]["Client"];
  McpError: Modules[1]["McpError"];
  ErrorCode: Modules[1]["ErrorCode"];
  ToolListChangedNotificationSchema: Modules[1]["ToolListChangedNotificationSchema"];
  StdioClientTransport: Modules[2]["StdioClientTransport"];
  getDefaultEnvironment: Modules[2]["getDefaultEnvironment"];
  StreamableHTTPClientTransport: Modules[3]["StreamableHTTPClientTransport"];
  SSEClientTransport: Modules[4]["SSEClientTransport"];
}

let loading: Promise<McpSdk> | undefined;

export function loadSdk(): Promise<McpSdk> {
  loading ??= Promise.all([
    import("@modelcontextprotocol/sdk/client/index.js"),
    import("@modelcontextprotocol/sdk/types.js"),
    import("@modelcontextprotocol/sdk/client/stdio.js"),
    import("@modelcontextprotocol/sdk/client/streamableHttp.js"),
    import("@modelcontextprotocol/sdk/client/sse.js"),
  ]).then(([client, types, stdio, http, sse]) => ({
    Client: client.Client,
    McpError: types.McpError,
    ErrorCode: types.ErrorCode,
    ToolListChangedNotificationSchema: types.ToolListChangedNotificationSchema,
    StdioClientTransport: stdio.StdioClientTransport,
    getDefaultEnvironment: stdio.getDefaultEnvironment,
    StreamableHTTPClientTransport: http.StreamableHTTPClientTransport,
    SSEClientTransport: sse.SSEClientTransport,
  }));
  return loading;
}
