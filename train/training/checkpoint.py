"""Checkpoints: written atomically (temporary file, then rename), the newest N kept.

A full checkpoint (``checkpoints/update_000120.pt``) holds everything a run needs to go on
exactly where it stopped: the weights, the optimizer, the counters, the league (snapshots,
results, generator), every game in progress and the sampling generator.  ``best.pt`` and
``final.pt`` are policy-only (the weights and the architecture: what ``ppo:path=...`` loads,
a few hundred KB).  All of it is plain data, loaded with ``torch.load(weights_only=True)``.

>>> import tempfile, torch
>>> from agents.neural.policy import PolicyNet, read_checkpoint
>>> folder = Path(tempfile.mkdtemp())
>>> save_policy(PolicyNet(), folder / "p.pt")
>>> sorted(read_checkpoint(folder / "p.pt"))
['format', 'model', 'model_sha256', 'policy']
"""
from __future__ import annotations

import os
import re
import tempfile
from dataclasses import asdict
from pathlib import Path
from typing import Any, Optional

import torch

from agents.neural.policy import CHECKPOINT_FORMAT, LOGITS, CheckpointError, PolicyNet, read_checkpoint, weights_sha256

__all__ = ["CheckpointError", "atomic_save", "policy_data", "save_policy", "save_full", "list_checkpoints",
           "latest_full", "checkpoint_path", "remove_stale_temporaries"]

_NAME = re.compile(r"^update_(\d{6,})\.pt$")


def atomic_save(data: Any, path: Path) -> None:
    """``torch.save`` to a temporary file beside ``path`` (named ``.NAME.*``), then rename it into
    place; a failed write (a full disk, say) is an ``OSError`` naming ``path`` and leaves no file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(handle, "wb") as stream:
            torch.save(data, stream)
            stream.flush()
            os.fsync(stream.fileno())
        os.replace(temporary, path)
    except (OSError, RuntimeError) as err:  # torch reports a failed write as RuntimeError
        Path(temporary).unlink(missing_ok=True)
        raise OSError(f"could not write {str(path)!r}: {str(err).splitlines()[0] if str(err) else type(err).__name__}"
                      ) from err
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def remove_stale_temporaries(folder: Path) -> list[Path]:
    """Delete the temporary files that writes killed half-way left in ``folder`` (``.NAME.*`` beside
    a ``*.pt``); returns them.

    >>> import tempfile
    >>> folder = Path(tempfile.mkdtemp())
    >>> _ = (folder / ".update_000010.pt.x1y2").write_bytes(b"half")
    >>> [p.name for p in remove_stale_temporaries(folder)], list(folder.iterdir())
    (['.update_000010.pt.x1y2'], [])
    """
    if not folder.is_dir():
        return []
    stale = sorted(p for p in folder.iterdir() if p.is_file() and re.match(r"^\..+\.pt\..+$", p.name))
    for path in stale:
        path.unlink(missing_ok=True)
    return stale


def policy_data(net: PolicyNet) -> dict[str, Any]:
    """The policy-only part of a checkpoint (with the weights' checksum, checked on loading); a network whose
    outputs are action values (``net.outputs``, a ``ppo.algorithm: dmc`` run) says so under ``outputs``."""
    model = net.state_dict()
    return {"format": CHECKPOINT_FORMAT, "policy": asdict(net.architecture), "model": model,
            "model_sha256": weights_sha256(model), **({"outputs": net.outputs} if net.outputs != LOGITS else {})}


def save_policy(net: PolicyNet, path: Path) -> None:
    """Write a policy-only checkpoint (what the ``ppo`` agent loads)."""
    atomic_save(policy_data(net), path)


def checkpoint_path(folder: Path, update: int) -> Path:
    """``folder / update_000042.pt``."""
    return folder / f"update_{update:06d}.pt"


def save_full(data: dict[str, Any], folder: Path, update: int, keep: int) -> Path:
    """Write a full checkpoint for ``update`` and delete all but the newest ``keep``."""
    path = checkpoint_path(folder, update)
    atomic_save({**data, "format": CHECKPOINT_FORMAT}, path)
    for old in list_checkpoints(folder)[:-keep]:
        old.unlink(missing_ok=True)
    return path


def list_checkpoints(folder: Path) -> list[Path]:
    """Full checkpoints in ``folder``, oldest first."""
    if not folder.is_dir():
        return []
    return sorted((p for p in folder.iterdir() if _NAME.match(p.name)), key=lambda p: int(_NAME.match(p.name)[1]))


def latest_full(folder: Path) -> Optional[dict[str, Any]]:
    """The newest full checkpoint in ``folder`` as data (None when there is none); a
    damaged one is an error naming the file, never silently skipped."""
    found = list_checkpoints(folder)
    if not found:
        return None
    data = read_checkpoint(found[-1])
    for key in ("model", "optimizer", "update", "league", "collector", "generator"):
        if key not in data:
            raise CheckpointError(f"checkpoint {str(found[-1])!r} is policy-only or incomplete (no {key!r}); "
                                  "resume needs a full checkpoint")
    return data
