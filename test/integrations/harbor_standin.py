"""Runs gong's Harbor agent the way a Harbor trial does, in a local stand-in for a task container.

Usage: python3 harbor_standin.py ROOT MODEL RELEASE  (prints the AgentContext and the trajectory's
check as one JSON line). The agent is imported through Harbor's own import path
(`gong_harbor:Gong`), built as Harbor's AgentFactory builds it, then setup(), run() and
populate_context_post_run() are called in that order. The stand-in environment runs each command
with bash on this machine, with the container's /logs and /installed-agent mapped under ROOT, and
/logs/agent is the agent's logs_dir, as Harbor mounts it.
"""
import asyncio
import json
import os
import shutil
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
sys.path[:0] = [str(REPO / "test/fixtures/harbor"), str(REPO / "integrations/harbor")]

from harbor.environments.base import BaseEnvironment, ExecResult  # noqa: E402
from harbor.models.agent.context import AgentContext  # noqa: E402
from harbor.models.trajectories import Trajectory  # noqa: E402
from harbor.utils.import_path import import_class  # noqa: E402

CONTAINER_DIRS = ("/installed-agent", "/logs")


class StandInEnvironment(BaseEnvironment):
    """A task container's file system under `root`; commands run with bash in `workdir`."""

    def __init__(self, root: Path, workdir: Path):
        self.root = root
        self.workdir = workdir
        self.commands: list[str] = []

    def local(self, text: str) -> str:
        for d in CONTAINER_DIRS:
            text = text.replace(d, f"{self.root}{d}")
        return text

    async def exec(self, command, cwd=None, env=None, timeout_sec=None, user=None) -> ExecResult:
        self.commands.append(command)
        proc = await asyncio.create_subprocess_exec(
            "bash",
            "-c",
            self.local(command),
            cwd=self.local(cwd) if cwd else str(self.workdir),
            env={**os.environ, **{k: self.local(v) for k, v in (env or {}).items()}},
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
        )
        out, err = await asyncio.wait_for(proc.communicate(), timeout=timeout_sec or 600)
        return ExecResult(stdout=out.decode(), stderr=err.decode(), return_code=proc.returncode)

    async def upload_file(self, source_path, target_path):
        target = Path(self.local(target_path))
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(source_path, target)

    async def upload_dir(self, source_dir, target_dir):
        shutil.copytree(source_dir, self.local(target_dir), dirs_exist_ok=True)

    async def download_file(self, source_path, target_path):
        shutil.copy(self.local(source_path), target_path)

    async def download_dir(self, source_dir, target_dir):
        shutil.copytree(self.local(source_dir), target_dir, dirs_exist_ok=True)


async def main(root: Path, model: str, release: str) -> None:
    workdir = root / "app"
    workdir.mkdir(parents=True)
    logs_dir = root / "logs" / "agent"
    logs_dir.mkdir(parents=True)
    agent_class = import_class("gong_harbor:Gong", label="agent")
    # As AgentFactory.create_agent_from_import_path: logs_dir, model_name, extra_env, then --ak kwargs.
    agent = agent_class(
        logs_dir=logs_dir,
        model_name=model,
        extra_env={k: v for k, v in os.environ.items() if k.startswith("ANTHROPIC_")},
        release=release,
    )
    environment = StandInEnvironment(root, workdir)
    context = AgentContext()
    await agent.setup(environment)
    await agent.run("Create hello.txt containing hi, then say done.", environment, context)
    agent.populate_context_post_run(context)
    trajectory = Trajectory.model_validate_json((logs_dir / "trajectory.json").read_text())
    print(
        json.dumps(
            {
                "name": agent.name(),
                "version": agent.version(),
                "context": context.model_dump(),
                "trajectory_steps": len(trajectory.steps),
                "trajectory_agent": trajectory.agent.name,
                "hello": (workdir / "hello.txt").read_text() if (workdir / "hello.txt").exists() else None,
                "commands": environment.commands,
                "installed": sorted(p.name for p in (root / "installed-agent").iterdir()),
            }
        )
    )


if __name__ == "__main__":
    asyncio.run(main(Path(sys.argv[1]), sys.argv[2], sys.argv[3]))
