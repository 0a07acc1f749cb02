"""The agent's configuration: `agent.json` ({server, name, token, labels}), written by `enroll`
in the config folder with mode 0600 (it holds the agent's token), read by `daemon`, and by
`run`/`upload` for the server, token and name they were not given."""

from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from perfatlas_agent.errors import ConfigError
from perfatlas_agent.send.spool import write_durably

CONFIG_FILE = "agent.json"


@dataclass(frozen=True)
class AgentConfig:
    server: str
    name: str
    token: str
    labels: dict[str, str] = field(default_factory=dict)


def default_config_dir() -> Path:
    """$PERFATLAS_AGENT_CONFIG_DIR, else /etc/perfatlas-agent as root, else
    $XDG_CONFIG_HOME/perfatlas-agent (~/.config/perfatlas-agent)."""
    env = os.environ.get("PERFATLAS_AGENT_CONFIG_DIR")
    if env:
        return Path(env).expanduser()
    if os.geteuid() == 0:
        return Path("/etc/perfatlas-agent")
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "perfatlas-agent"


def config_path(config_dir: Path | None) -> Path:
    return (config_dir or default_config_dir()).expanduser() / CONFIG_FILE


def load_config(config_dir: Path | None, *, required: bool = False) -> AgentConfig | None:
    path = config_path(config_dir)
    if not path.exists():
        if required:
            raise ConfigError(
                f"no {path}: enroll this machine first (`perfatlas-agent enroll --server URL "
                "--enrollment-token T`), or pass --config-dir"
            )
        return None
    try:
        data: Any = json.loads(path.read_text())
    except (OSError, json.JSONDecodeError) as exc:
        raise ConfigError(f"cannot read {path}: {exc}") from exc
    if not isinstance(data, dict):
        raise ConfigError(f"{path} is not a JSON object")
    for key in ("server", "name", "token"):
        if not isinstance(data.get(key), str) or not data[key]:
            raise ConfigError(f"{path}: {key} is missing (enroll again)")
    labels = data.get("labels") or {}
    if not isinstance(labels, dict):
        raise ConfigError(f"{path}: labels must be an object")
    return AgentConfig(
        server=data["server"], name=data["name"], token=data["token"],
        labels={str(k): str(v) for k, v in labels.items()},
    )  # fmt: skip


def save_config(config_dir: Path | None, config: AgentConfig) -> Path:
    """Written durably, mode 0600 from its creation (never readable by others, even briefly)."""
    path = config_path(config_dir)
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    write_durably(path, (json.dumps(asdict(config), indent=1, sort_keys=True) + "\n").encode())
    os.chmod(path, 0o600)
    return path
