/**
 * `gong --mode acp`: the Agent Client Protocol (version 1) over stdio, on the official SDK, so
 * editors (Zed and others) drive gong as they drive their other agents. stdout carries protocol
 * messages only; anything else goes to stderr.
 *
 * Supported: initialize, session/new, session/load (the stored conversation replayed as updates),
 * session/prompt, session/cancel (the session stays usable), session/set_mode (approval modes),
 * session/set_config_option (the model); session/request_permission before calls that need
 * consent; fs/* and terminal/* of the client when it offers them.
 */
import * as acp from "@agentclientprotocol/sdk";
import { isAbsolute } from "node:path";
import { createSession } from "../../agent/index.ts";
import { McpConfigError, type McpManager } from "../../mcp/index.ts";
import { sessionMcp } from "./mcp-servers.ts";
import type { LocalEnvironment } from "../../env/local.ts";
import type { ExecutionEnvironment } from "../../env/types.ts";
import { listModels } from "../../llm/catalog.ts";
import { SessionStore } from "../../store/session-store.ts";
import { VERSION } from "../../version.ts";
import { APPROVAL_MODE_HELP, APPROVAL_MODES, isApprovalMode, withGate, type ApprovalMode } from "../approval.ts";
import { attachShellHooks, EXIT, openExisting, type Io } from "../session-io.ts";
import { ConfigError } from "../model.ts";
import { SettingsError } from "../settings.ts";
import type { CliSetup } from "../setup.ts";
import { ClientEnvironment } from "./client-environment.ts";
import { EditorSession } from "./editor-session.ts";
import { replayUpdates } from "./replay.ts";
import { discoverSetup } from "../../setup/index.ts";
import { isProjectTrusted } from "../trust.ts";
import { answerUnknownMethods } from "./unknown-methods.ts";

export interface AcpOptions {
  /** Approval mode of new sessions (--approval / the `approval` setting); default "ask". */
  approval: ApprovalMode;
  /** `--trust`: the project servers of a session's directory start (otherwise its trust is looked up). */
  trust?: boolean;
}

export async function runAcp(setup: CliSetup, io: Io, options: AcpOptions): Promise<number> {
  const sessions = new Map<string, EditorSession>();
  /** Each session's own environment (rooted at its cwd); cleaned up when the editor leaves. */
  const environments: LocalEnvironment[] = [];
  /** MCP servers started for one editor session (with the servers the editor gave); stopped when the editor leaves. */
  const managers: McpManager[] = [];
  let capabilities: acp.ClientCapabilities = {};

  const find = (sessionId: string): EditorSession => {
    const found = sessions.get(sessionId);
    if (!found) throw acp.RequestError.resourceNotFound(sessionId);
    return found;
  };

  /** A gong session for an editor session: the editor's files and terminals when it offers them. */
  const open = async (
    client: acp.AgentContext,
    cwd: string,
    store: SessionStore,
    mcpServers?: acp.McpServer[],
  ): Promise<EditorSession> => {
    if (!isAbsolute(cwd))
      throw acp.RequestError.invalidParams(undefined, `cwd must be an absolute path (got '${cwd}').`);
    const warn = (line: string) => void io.stderr.write(`${line}\n`);
    const editor = new EditorSession(store.id, cwd, client, options.approval, {
      notices: Boolean(capabilities.session?.notices),
      warn,
      permissions: setup.permissions,
    });
    const local = setup.environmentFor(cwd);
    environments.push(local);
    // --sandbox boxes the commands gong runs itself (the editor's terminals are the editor's).
    const own = setup.box ? setup.box(local) : local;
    const env: ExecutionEnvironment =
      capabilities.fs?.readTextFile || capabilities.fs?.writeTextFile || capabilities.terminal
        ? new ClientEnvironment(own, {
            sessionId: store.id,
            client,
            capabilities,
            onTerminal: (id) => editor.terminalOpened(id),
          })
        : own;
    const hooks = withGate(setup.sessionOptions.hooks, editor.gate);
    // gong's servers for the session's directory (its .mcp.json, not that of gong's own cwd) and the editor's.
    let mcp: ReturnType<typeof sessionMcp>;
    try {
      mcp = sessionMcp({
        cwd,
        startCwd: setup.cwd,
        shared: setup.sessionOptions.mcpServers as McpManager | undefined,
        given: mcpServers,
        trustFlag: options.trust,
        env: io.env,
        warn,
      });
    } catch (e) {
      // A malformed settings or .mcp.json file there: the editor shows the message naming file and key.
      if (e instanceof ConfigError || e instanceof SettingsError || e instanceof McpConfigError)
        throw acp.RequestError.invalidParams(undefined, e.message);
      throw e;
    }
    if (mcp.owned) managers.push(mcp.manager!);
    // The skills, agents and commands of the session's own directory.
    const brought = cwd === setup.cwd ? setup.brought : await discoverSetup({ cwd, home: io.env.HOME });
    if (cwd !== setup.cwd) for (const problem of brought.problems) warn(`gong: warning: ${problem}`);
    const session = await createSession({
      ...setup.sessionOptions,
      cwd,
      env,
      hooks,
      store,
      mcpServers: mcp.manager,
      skills: brought.skills,
      agents: brought.agents,
    });
    attachShellHooks(setup, session);
    editor.attach(session);
    const trusted =
      cwd === setup.cwd ? setup.trusted : isProjectTrusted(cwd, { flag: options.trust, global: setup.settings });
    editor.commands = { commands: brought.commands, cwd, env: own, trusted, warn };
    sessions.set(store.id, editor);
    return editor;
  };

  const state = (editor: EditorSession) => ({
    modes: {
      currentModeId: editor.mode,
      availableModes: APPROVAL_MODES.map((id) => ({ id, name: id, description: capitalized(APPROVAL_MODE_HELP[id]) })),
    },
    configOptions: [modelOption(editor.gong.model)],
  });

  const app = acp
    .agent()
    .onRequest("initialize", ({ params }) => {
      capabilities = params.clientCapabilities ?? {};
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
    })
    .onRequest("session/new", async ({ params, client }) => {
      const store = SessionStore.create({ cwd: params.cwd, persist: setup.store !== false });
      const editor = await open(client, params.cwd, store, params.mcpServers);
      // The editor learns the commands once it knows the session (after this answer).
      setTimeout(() => void editor.announceCommands(), 0);
      return { sessionId: editor.id, ...state(editor) };
    })
    .onRequest("session/load", async ({ params, client }) => {
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
      const editor = await open(client, params.cwd, store, params.mcpServers);
      for (const update of replayUpdates(editor.gong.messages, editor.resolvePath)) void editor.send(update);
      await editor.send({ sessionUpdate: "current_mode_update", currentModeId: editor.mode });
      await editor.announceCommands();
      return state(editor);
    })
    .onRequest("session/prompt", async ({ params }) => ({
      stopReason: await find(params.sessionId).prompt(params.prompt),
    }))
    .onNotification("session/cancel", async ({ params }) => {
      await sessions.get(params.sessionId)?.cancel();
    })
    .onRequest("session/set_mode", ({ params }) => {
      if (!isApprovalMode(params.modeId))
        throw acp.RequestError.invalidParams(
          undefined,
          `Unknown mode '${params.modeId}'. Modes: ${APPROVAL_MODES.join(", ")}.`,
        );
      find(params.sessionId).mode = params.modeId;
      return {};
    })
    .onRequest("session/set_config_option", ({ params }) => {
      const editor = find(params.sessionId);
      if (params.configId !== "model" || typeof params.value !== "string")
        throw acp.RequestError.invalidParams(undefined, `Unknown option '${params.configId}'; gong offers 'model'.`);
      try {
        editor.gong.setModel(params.value);
      } catch (e) {
        throw acp.RequestError.invalidParams(undefined, (e as Error).message);
      }
      return { configOptions: [modelOption(editor.gong.model)] };
    });

  const connection = app.connect(
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
  // The editor went away: stop what runs and close every session (their files are complete).
  await Promise.all([...sessions.values()].map((s) => s.gong.close().catch(() => {})));
  await Promise.all(environments.map((e) => e.cleanup().catch(() => {})));
  await Promise.all(managers.map((m) => m.close().catch(() => {})));
  return EXIT.ok;
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
