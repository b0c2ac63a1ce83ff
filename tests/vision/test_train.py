"""Training's wiring, without training: ultralytics is replaced by a stand-in that records calls."""

from __future__ import annotations

import os
import sys
import types
from pathlib import Path

import pytest

from vision import train as training

torch = pytest.importorskip("torch")


class _Trainer:
    def __init__(self, device_type: str) -> None:
        self.device = types.SimpleNamespace(type=device_type)


@pytest.fixture
def threads():
    before = torch.get_num_threads()
    torch.set_num_threads(1)  # what ultralytics leaves on a 2-core machine
    yield
    torch.set_num_threads(before)


def test_a_cpu_run_trains_on_every_core(threads):
    training.use_every_core(_Trainer("cpu"))
    assert torch.get_num_threads() == (os.cpu_count() or 1)


def test_a_gpu_run_leaves_the_cpu_threads_alone(threads):
    training.use_every_core(_Trainer("cuda"))
    assert torch.get_num_threads() == 1


@pytest.mark.parametrize("resume", [False, True])
def test_every_run_registers_the_every_core_callback(resume, tmp_path, monkeypatch):
    calls: list[tuple] = []

    class FakeYOLO:
        def __init__(self, weights: str) -> None:
            calls.append(("load", weights))

        def add_callback(self, event: str, callback) -> None:
            calls.append(("callback", event, callback))

        def train(self, **kwargs) -> None:
            calls.append(("train", kwargs.get("resume", False)))
            if "project" in kwargs:  # a new run: ultralytics makes its folder
                Path(kwargs["project"], kwargs["name"]).mkdir(parents=True, exist_ok=True)

    monkeypatch.setitem(sys.modules, "ultralytics", types.SimpleNamespace(YOLO=FakeYOLO))
    if resume:
        last = tmp_path / "detector" / "weights" / "last.pt"
        last.parent.mkdir(parents=True)
        last.write_bytes(b"checkpoint")
    spec = training.detector_spec(Path("data.yaml"))
    training.train(spec, resume=resume, runs_dir=tmp_path)

    registered = [call for call in calls if call[0] == "callback"]
    assert registered == [("callback", "on_pretrain_routine_start", training.use_every_core)]
    assert calls.index(registered[0]) < calls.index(("train", resume))
