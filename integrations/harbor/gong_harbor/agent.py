"""gong as a Harbor installed agent.

Harbor builds the agent with `--agent gong_harbor:Gong` (the folder holding `gong_harbor` on
PYTHONPATH), calls `setup()` — which runs `install()` — then `run()` with the task's instruction,
then `populate_context_post_run()` once the container's `/logs/agent` is back on the host.

- install: gong's release binary for the container's CPU and C library, from a release
  (`--ak release=URL-or-directory`, or GONG_RELEASE), its checksum verified against the release's
  SHA256SUMS; or a binary from the host (`--ak binary=PATH`, or GONG_BINARY), uploaded as it is.
- run: `gong -p --output-format json --model <Harbor's model>` with the instruction on stdin and
  the model provider's key and base URL from Harbor's environment; the session is kept under the
  agent's log folder, and `gong export --format atif` writes `trajectory.json` beside it.
- context: tokens and cost from the trajectory's final metrics (or, without one, from the run's
  JSON result).
"""

import json
import shlex
from pathlib import Path, PurePosixPath
from typing import Any

from harbor.agents.installed.base import BaseInstalledAgent
from harbor.environments.base import BaseEnvironment
from harbor.models.agent.context import AgentContext

# The variables gong reads each provider's key and base URL from (lib/llm/providers.ts; a test
# checks the two lists agree).
PROVIDER_VARIABLES: dict[str, tuple[str, ...]] = {
    "anthropic": ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "ANTHROPIC_BASE_URL"),
    "openai": ("OPENAI_API_KEY", "OPENAI_BASE_URL"),
    "gemini": ("GEMINI_API_KEY", "GOOGLE_API_KEY", "GOOGLE_GEMINI_BASE_URL"),
    "openrouter": ("OPENROUTER_API_KEY",),
    "groq": ("GROQ_API_KEY",),
    "deepseek": ("DEEPSEEK_API_KEY",),
    "xai": ("XAI_API_KEY",),
    "mistral": ("MISTRAL_API_KEY",),
    "together": ("TOGETHER_API_KEY",),
    "cerebras": ("CEREBRAS_API_KEY",),
}
PROVIDER_ALIASES = {"google": "gemini"}

# gong's exit codes: 0 done, 3 the answer was cut short (an output limit, a refusal). Both are a
# finished attempt for the verifier to judge; 1 (failed) and 2 (configuration) are errors.
FINISHED_EXIT_CODES = (0, 3)


class Gong(BaseInstalledAgent):
    SUPPORTS_ATIF: bool = True

    def __init__(
        self,
        logs_dir: Path,
        release: str | None = None,
        binary: str | None = None,
        install_dir: str = "/installed-agent",
        *args,
        **kwargs,
    ):
        super().__init__(logs_dir, *args, **kwargs)
        self._release = release or self._get_env("GONG_RELEASE")
        self._binary = binary or self._get_env("GONG_BINARY")
        self._install_dir = PurePosixPath(install_dir)
        if not self._release and not self._binary:
            raise ValueError(
                "gong needs a release to install from: pass --ak release=<URL or directory holding "
                "gong-linux-x64 and SHA256SUMS> (or set GONG_RELEASE), or --ak binary=<path of a gong "
                "binary for the task's containers> (or set GONG_BINARY)."
            )

    @staticmethod
    def name() -> str:
        return "gong"

    @property
    def _gong(self) -> str:
        return (self._install_dir / "gong").as_posix()

    def get_version_command(self) -> str | None:
        return f"{shlex.quote(self._gong)} --version"

    def parse_version(self, stdout: str) -> str:
        # "gong 0.1.0"
        return stdout.strip().removeprefix("gong").strip()

    async def install(self, environment: BaseEnvironment) -> None:
        target = shlex.quote(self._gong)
        if self._binary:
            await environment.upload_file(self._binary, self._gong)
            await self.exec_as_root(environment, f"chmod 755 {target} && {target} --version")
            return
        await self.exec_as_root(environment, _install_script(self._release, self._gong))

    async def run(self, instruction: str, environment: BaseEnvironment, context: AgentContext) -> None:
        if not self.model_name or "/" not in self.model_name:
            raise ValueError(
                f"gong needs the model as provider/model-id (e.g. anthropic/claude-sonnet-4-6), got {self.model_name!r}."
            )
        logs = self.environment_logs_dir
        env = {
            **self._provider_env(),
            "GONG_HOME": (logs / "gong-home").as_posix(),
            "GONG_TASK": instruction,
        }
        gong = shlex.quote(self._gong)
        result = shlex.quote((logs / "gong-result.json").as_posix())
        trajectory = shlex.quote((logs / "trajectory.json").as_posix())
        command = (
            # The instruction comes through the environment (no quoting to get wrong) and is not left there for gong's commands.
            'task="$GONG_TASK"; unset GONG_TASK; '
            f'printf "%s" "$task" | {gong} -p --output-format json --model {shlex.quote(self.model_name)} '
            f"> {result} 2> >(tee {shlex.quote((logs / 'gong-stderr.txt').as_posix())} >&2); code=$?; "
            f"{gong} export --format atif -o {trajectory}; "
            f'case "$code" in {"|".join(str(c) for c in FINISHED_EXIT_CODES)}) exit 0;; *) exit "$code";; esac'
        )
        await self.exec_as_agent(environment, f"mkdir -p {shlex.quote(logs.as_posix())} && bash -c {shlex.quote(command)}", env=env)

    def populate_context_post_run(self, context: AgentContext) -> None:
        trajectory = self.logs_dir / "trajectory.json"
        metrics: dict[str, Any] | None = None
        if trajectory.is_file():
            try:
                metrics = json.loads(trajectory.read_text()).get("final_metrics")
            except (OSError, ValueError) as error:
                self.logger.debug(f"gong's trajectory could not be read: {error}")
        if metrics:
            context.n_input_tokens = metrics.get("total_prompt_tokens") or 0
            context.n_cache_tokens = metrics.get("total_cached_tokens") or 0
            context.n_output_tokens = metrics.get("total_completion_tokens") or 0
            context.cost_usd = metrics.get("total_cost_usd")
            return
        result = self.logs_dir / "gong-result.json"
        try:
            data = json.loads(result.read_text())
        except (OSError, ValueError):
            return
        usage = data.get("usage") or {}
        context.n_input_tokens = sum(usage.get(k, 0) for k in ("input", "cacheRead", "cacheWrite"))
        context.n_cache_tokens = usage.get("cacheRead", 0)
        context.n_output_tokens = usage.get("output", 0)
        context.cost_usd = data.get("cost_usd")

    def _provider_env(self) -> dict[str, str]:
        provider = self.model_name.split("/", 1)[0].lower()
        names = PROVIDER_VARIABLES.get(PROVIDER_ALIASES.get(provider, provider), ())
        # A custom provider of gong's settings names its own variable: GONG_PASS_ENV lists extra names.
        extra = [n for n in (self._get_env("GONG_PASS_ENV") or "").split(",") if n.strip()]
        env = {}
        for name in [*names, *(n.strip() for n in extra)]:
            value = self._get_env(name)
            if value:
                env[name] = value
        return env


def _install_script(release: str, target: str) -> str:
    """Picks the build for the container (CPU, glibc or musl), fetches it and SHA256SUMS, checks, installs."""
    fetch = (
        'if [ -d "$release" ]; then cp "$release/$1" "$1"; '
        'elif command -v curl >/dev/null 2>&1; then curl -fsSL -o "$1" "$release/$1"; '
        'elif command -v wget >/dev/null 2>&1; then wget -q -O "$1" "$release/$1"; '
        'else echo "gong install: neither curl nor wget is in the container to download $release/$1" >&2; exit 1; fi'
    )
    return (
        f"set -eu; release={shlex.quote(release.rstrip('/'))}; target={shlex.quote(target)}; "
        'case "$(uname -m)" in x86_64|amd64) cpu=x64;; aarch64|arm64) cpu=arm64;; '
        '*) echo "gong install: no gong build for CPU $(uname -m)" >&2; exit 1;; esac; '
        "libc=; if ! getconf GNU_LIBC_VERSION >/dev/null 2>&1 && ls /lib/ld-musl-* >/dev/null 2>&1; then libc=-musl; fi; "
        'name="gong-linux-$cpu$libc"; work=$(mktemp -d); cd "$work"; '
        f"fetch() {{ {fetch}; }}; "
        'fetch "$name"; fetch SHA256SUMS; '
        'grep " [*]\\?$name\\$" SHA256SUMS > expected || { echo "gong install: $name is not listed in SHA256SUMS" >&2; exit 1; }; '
        "sha256sum -c expected >/dev/null || { echo \"gong install: $name does not match its checksum in SHA256SUMS\" >&2; exit 1; }; "
        'mkdir -p "$(dirname "$target")"; install -m 755 "$name" "$target"; cd /; rm -rf "$work"; "$target" --version'
    )
