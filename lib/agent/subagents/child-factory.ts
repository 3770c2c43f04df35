/**
 * What a child agent is built from. The parent session hands its manager a ChildFactory (made by
 * createSession from the options it was created with) and, at each spawn, a ParentSnapshot: a
 * value of what the parent is at that moment. A child never reads the parent's live parts, so a
 * later setProfile / setTools / setModel of the parent changes no child built before it.
 */
import type { SpawnRequest } from "../../profiles/subagents.ts";
import type { ExecutionEnvironment } from "../../env/types.ts";
import type { LlmClient, Message } from "../../llm/types.ts";
import type { McpManager } from "../../mcp/index.ts";
import type { ProfileFactory, ProviderProfile } from "../../profiles/types.ts";
import type { AgentDefinition } from "../../setup/agents.ts";
import type { Skill } from "../../setup/skills.ts";
import type { ToolPreset } from "../../../tools/selection.ts";
import type { SessionConfig } from "../config.ts";
import type { PromptSources } from "../system-prompt.ts";
import type { Hooks, SessionEvent, SubmitResult } from "../vocabulary.ts";

/** The parent as it is when a child is spawned or reopened (copies, never the parent's own objects that change). */
export interface ParentSnapshot {
  readonly model: string;
  /** "auto" or the profile named: a child on another family's model follows it. */
  readonly profileChoice: string | ProfileFactory;
  readonly profile: ProviderProfile;
  readonly toolSelection: ToolPreset | readonly string[];
  /** The parent's Toolset: its active tools (a custom agent without a tool list inherits them) and the tools it knows. */
  readonly toolset: { readonly names: readonly string[]; known(name: string): unknown };
  /** Shared with the child: the same workspace and background commands' environment. */
  readonly env: ExecutionEnvironment;
  readonly client: LlmClient;
  readonly config: Readonly<SessionConfig>;
  readonly hooks: readonly Hooks[];
  readonly skills: readonly Skill[];
  readonly agents: readonly AgentDefinition[];
  /** The parent's prompt sources (a child in the same place with the same model reuses them). */
  readonly sources: PromptSources;
  /** The parent's conversation (a child with fork_context starts from it). */
  readonly messages: readonly Message[];
  /** The parent's MCP servers, shared with its children. */
  readonly mcp?: McpManager;
}

/** Builds the children of one session; what cannot be built is a ToolError (the spawning tool's error). */
export interface ChildFactory {
  spawn(request: SpawnRequest, parent: ParentSnapshot): Promise<ChildSession>;
  /** Opens a child again from its session file (a stored child of a resumed parent, a closed one). */
  reopen(sessionFile: string, parent: ParentSnapshot): Promise<ChildSession>;
}

/** What the manager needs of a child session (a Session satisfies it). */
export interface ChildSession {
  readonly id: string;
  readonly sessionFile: string | undefined;
  /** The conversation so far (a reopened child's history, read from its file). */
  readonly messages: readonly unknown[];
  submit(text: string): Promise<SubmitResult>;
  steer(text: string): void;
  followUp(text: string): void;
  /** Stops the running input (its commands are killed); the session stays open. */
  interrupt(): Promise<void>;
  abort(): Promise<void>;
  subscribe(listener: (event: SessionEvent) => void): () => void;
}
