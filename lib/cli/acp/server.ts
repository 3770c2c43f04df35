/**
 * `gong --mode acp`: the Agent Client Protocol (version 1) over stdio, on the official SDK, so
 * editors (Zed and others) drive gong as they drive their other agents. stdout carries protocol
 * messages only; anything else goes to stderr.
 *
 * Supported: initialize, session/new, session/load (the stored conversation replayed as updates),
 * session/prompt, session/cancel (the session stays usable), session/set_mode (approval modes),
 * session/set_config_option (the model); session/request_permission before calls that need
 * consent and for the tools that ask the user (editor-user.ts); fs/* and terminal/* of the client
 * when it offers them.
 */
import * as acp from "@agentclientprotocol/sdk";
import { isAbsolute } from "node:path";
import { ConfigError } from "../../core/errors.ts";
import { openExisting, openSession, persists } from "../../core/open.ts";
import { EXIT } from "../../core/outcome.ts";
import type { SessionSetup } from "../../core/prepare.ts";
import { SettingsError } from "../../core/settings.ts";
import type { LocalEnvironment } from "../../env/local.ts";
import type { ExecutionEnvironment } from "../../env/types.ts";
import { listModels } from "../../llm/catalog.ts";
import { McpConfigError, type McpManager } from "../../mcp/index.ts";
import { SessionStore } from "../../store/session-store.ts";
import { VERSION } from "../../version.ts";
import { withGate } from "../../gate/approval.ts";
import { APPROVAL_MODE_HELP, APPROVAL_MODES, isApprovalMode } from "../../gate/modes.ts";
import type { Io } from "../session-io.ts";
import { ClientEnvironment } from "./client-environment.ts";
import { EditorSession } from "./editor-session.ts";
import { EditorUser } from "./editor-user.ts";
import { sessionMcp } from "./mcp-servers.ts";
import { replayUpdates } from "./replay.ts";
import { answerUnknownMethods } from "./unknown-methods.ts";

export async function runAcp(setup: SessionSetup, io: Io): Promise<number> {
  const agent = new AcpAgent(setup, io);
  const connection = requests(agent).connect(
    acp.ndJsonStream(
      writableOf(io),
      answerUnknownMethods(readableOf(io), (line) => io.stdout.write(line)),
    ),
  );
  // gong told to end (SIGTERM, SIGHUP) ends the run as if the editor went away.
  const terminated = new Promise<void>((done) =>
    setup.terminated.aborted ? done() : setup.terminated.addEventListener("abort", () => done(), { once: true }),
  );
  await Promise.race([connection.closed, terminated]);
  await agent.close();
  return EXIT.ok;
}

/** The protocol's methods, each answered by the agent. */
function requests(agent: AcpAgent) {
  return acp
    .agent()
    .onRequest("initialize", ({ params }) => agent.initialize(params))
    .onRequest("session/new", ({ params, client }) => agent.newSession(params, client))
    .onRequest("session/load", ({ params, client }) => agent.loadSession(params, client))
    .onRequest("session/prompt", async ({ params }) => ({
      stopReason: await agent.find(params.sessionId).prompt(params.prompt),
    }))
    .onNotification("session/cancel", async ({ params }) => {
      await agent.cancel(params.sessionId);
    })
    .onRequest("session/set_mode", ({ params }) => agent.setMode(params))
    .onRequest("session/set_config_option", ({ params }) => agent.setConfigOption(params));
}

/** The editor's sessions, each a gong session in its own directory, and what they hold open. */
class AcpAgent {
  private readonly sessions = new Map<string, EditorSession>();
  /** Each session's own environment (rooted at its cwd); cleaned up when the editor leaves. */
  private readonly environments: LocalEnvironment[] = [];
  /** MCP servers started for one editor session (with the servers the editor gave); stopped when the editor leaves. */
  private readonly managers: McpManager[] = [];
  private capabilities: acp.ClientCapabilities = {};
  private readonly warn: (line: string) => void;

  constructor(
    private readonly setup: SessionSetup,
    private readonly io: Io,
  ) {
    this.warn = (line) => void io.stderr.write(`${line}\n`);
  }

  initialize(params: acp.InitializeRequest): acp.InitializeResponse {
    this.capabilities = params.clientCapabilities ?? {};
    return {
      protocolVersion: acp.PROTOCOL_VERSION,
      agentCapabilities: {
        loadSession: true,
        promptCapabilities: { image: true, embeddedContext: true },
        mcpCapabilities: { http: true, sse: true },
      },
      agentInfo: { name: "gong", title: "gong", version: VERSION },
      authMethods: [],
    };
  }

  find(sessionId: string): EditorSession {
    const found = this.sessions.get(sessionId);
    if (!found) throw acp.RequestError.resourceNotFound(sessionId);
    return found;
  }

  async newSession(params: acp.NewSessionRequest, client: acp.AgentContext): Promise<acp.NewSessionResponse> {
    const store = SessionStore.create({ cwd: params.cwd, persist: persists(this.setup) });
    const editor = await this.open(client, params.cwd, store, params.mcpServers);
    // The editor learns the commands once it knows the session (after this answer).
    setTimeout(() => void editor.announceCommands(), 0);
    return { sessionId: editor.id, ...state(editor) };
  }

  async loadSession(params: acp.LoadSessionRequest, client: acp.AgentContext): Promise<acp.LoadSessionResponse> {
    // ACP names a session by its id: a path or a traversal is refused before any file is looked at.
    if (!/^[A-Za-z0-9][A-Za-z0-9_-]*$/.test(params.sessionId)) {
      throw acp.RequestError.invalidParams(
        undefined,
        `session/load takes a session id (letters, digits, '-' and '_'), not a path: '${params.sessionId}' was refused.`,
      );
    }
    let store: SessionStore;
    try {
      store = openExisting(params.sessionId, params.cwd);
    } catch (e) {
      throw acp.RequestError.resourceNotFound(`${params.sessionId} (${(e as Error).message})`);
    }
    const editor = await this.open(client, params.cwd, store, params.mcpServers);
    for (const update of replayUpdates(editor.gong.messages, editor.resolvePath)) void editor.send(update);
    await editor.send({ sessionUpdate: "current_mode_update", currentModeId: editor.mode });
    await editor.announceCommands();
    return state(editor);
  }

  async cancel(sessionId: string): Promise<void> {
    await this.sessions.get(sessionId)?.cancel();
  }

  setMode(params: acp.SetSessionModeRequest): acp.SetSessionModeResponse {
    if (!isApprovalMode(params.modeId))
      throw acp.RequestError.invalidParams(
        undefined,
        `Unknown mode '${params.modeId}'. Modes: ${APPROVAL_MODES.join(", ")}.`,
      );
    this.find(params.sessionId).mode = params.modeId;
    return {};
  }

  setConfigOption(params: acp.SetSessionConfigOptionRequest): acp.SetSessionConfigOptionResponse {
    const editor = this.find(params.sessionId);
    if (params.configId !== "model" || typeof params.value !== "string")
      throw acp.RequestError.invalidParams(undefined, `Unknown option '${params.configId}'; gong offers 'model'.`);
    try {
      editor.gong.setModel(params.value);
    } catch (e) {
      throw acp.RequestError.invalidParams(undefined, (e as Error).message);
    }
    return { configOptions: [modelOption(editor.gong.model)] };
  }

  /** The editor went away: stop what runs and close every session (their files are complete). */
  async close(): Promise<void> {
    await Promise.all([...this.sessions.values()].map((s) => s.gong.close().catch(() => {})));
    await Promise.all(this.environments.map((e) => e.cleanup().catch(() => {})));
    await Promise.all(this.managers.map((m) => m.close().catch(() => {})));
  }

  /** A gong session for an editor session: the editor's files and terminals when it offers them. */
  private async open(
    client: acp.AgentContext,
    cwd: string,
    store: SessionStore,
    mcpServers?: acp.McpServer[],
  ): Promise<EditorSession> {
    if (!isAbsolute(cwd))
      throw acp.RequestError.invalidParams(undefined, `cwd must be an absolute path (got '${cwd}').`);
    const { setup, warn } = this;
    const editor = new EditorSession(store.id, cwd, client, setup.approval, {
      notices: Boolean(this.capabilities.session?.notices),
      warn,
      permissions: setup.permissions,
    });
    const { own, env } = this.environment(client, cwd, editor);
    const mcp = this.mcp(cwd, mcpServers);
    // The skills, agents and commands of the session's own directory, and whether that project is trusted.
    const project = await setup.projectAt(cwd);
    const session = await openSession(setup, store, {
      cwd,
      env,
      hooks: withGate(setup.sessionOptions.hooks, editor.gate),
      mcpServers: mcp,
      skills: project.brought.skills,
      agents: project.brought.agents,
      // AskUserQuestion and the plan mode tools ask the editor.
      user: new EditorUser(editor),
    });
    editor.attach(session);
    editor.commands = { commands: project.brought.commands, cwd, env: own, trusted: project.trusted, warn };
    this.sessions.set(store.id, editor);
    return editor;
  }

  /** The session's commands run in gong's own environment for its cwd (boxed by --sandbox); its files and terminals are the editor's when offered. */
  private environment(
    client: acp.AgentContext,
    cwd: string,
    editor: EditorSession,
  ): { own: ExecutionEnvironment; env: ExecutionEnvironment } {
    const local = this.setup.environmentFor(cwd);
    this.environments.push(local);
    // --sandbox boxes the commands gong runs itself (the editor's terminals are the editor's).
    const own = this.setup.box ? this.setup.box(local) : local;
    const capabilities = this.capabilities;
    if (!(capabilities.fs?.readTextFile || capabilities.fs?.writeTextFile || capabilities.terminal))
      return { own, env: this.setup.guardReads(own) };
    const env = new ClientEnvironment(own, {
      sessionId: editor.id,
      client,
      capabilities,
      onTerminal: (id) => editor.terminalOpened(id),
    });
    // Reads and searches through the editor's files leave out what a Read deny rule covers, as gong's own do.
    return { own, env: this.setup.guardReads(env) };
  }

  /** gong's servers for the session's directory (its .mcp.json, not that of gong's own cwd) and the editor's. */
  private mcp(cwd: string, given: acp.McpServer[] | undefined): McpManager | undefined {
    let mcp: ReturnType<typeof sessionMcp>;
    try {
      mcp = sessionMcp({
        cwd,
        startCwd: this.setup.cwd,
        shared: this.setup.sessionOptions.mcpServers as McpManager | undefined,
        sourcesAt: this.setup.mcpSourcesAt,
        given,
        trustFlag: this.setup.flags.trust,
        env: this.io.env,
        warn: this.warn,
      });
    } catch (e) {
      // A malformed settings or .mcp.json file there: the editor shows the message naming file and key.
      if (e instanceof ConfigError || e instanceof SettingsError || e instanceof McpConfigError)
        throw acp.RequestError.invalidParams(undefined, e.message);
      throw e;
    }
    if (mcp.owned) this.managers.push(mcp.manager!);
    return mcp.manager;
  }
}

/** The modes and the model option an editor session shows. */
function state(editor: EditorSession) {
  return {
    modes: {
      currentModeId: editor.mode,
      availableModes: APPROVAL_MODES.map((id) => ({ id, name: id, description: capitalized(APPROVAL_MODE_HELP[id]) })),
    },
    configOptions: [modelOption(editor.gong.model)],
  };
}

/** The model choice as an ACP select: the current model and the catalog's models of the same provider. */
function modelOption(current: string): acp.SessionConfigOption {
  const provider = current.slice(0, current.indexOf("/"));
  const refs = [
    current,
    ...listModels()
      .map((m) => m.ref)
      .filter((ref) => ref !== current && ref.startsWith(`${provider}/`)),
  ];
  return {
    id: "model",
    name: "Model",
    category: "model",
    type: "select",
    currentValue: current,
    options: refs.map((ref) => ({ value: ref, name: ref })),
  };
}

const capitalized = (text: string) => `${text[0].toUpperCase()}${text.slice(1)}`;

function writableOf(io: Io): WritableStream<Uint8Array> {
  return new WritableStream({
    write: (chunk) =>
      new Promise<void>((resolve, reject) => {
        io.stdout.write(chunk, (error) => (error ? reject(error) : resolve()));
      }),
  });
}

function readableOf(io: Io): ReadableStream<Uint8Array> {
  return new ReadableStream({
    start(controller) {
      io.stdin.on("data", (chunk: Buffer | string) =>
        controller.enqueue(typeof chunk === "string" ? new TextEncoder().encode(chunk) : new Uint8Array(chunk)),
      );
      io.stdin.on("end", () => controller.close());
      io.stdin.on("error", (e) => controller.error(e));
    },
  });
}
