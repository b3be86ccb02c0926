"""`segment-corpus --address` on a real Ray cluster started on this machine (#63): a head with no
CPU and a worker node with two, separate processes (`ray start`), every address on loopback
(127.0.0.2: Ray replaces 127.0.0.1 by the machine's routable address), so the actors run on the
worker node. The outputs are `segment`'s byte for byte; a driver killed mid-run
leaves no committed file, and the same command rerun finishes with nothing left over; a second
driver on the same output folder is refused (E129)."""
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from tests.app.ray_helpers import free_port, leftovers, ray_cluster, segmented_corpus
from tests.util import LEGACY_FIXTURE

ray = pytest.importorskip("ray")

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def cluster():
    """A head (no CPU) and a worker node (2 CPUs) on loopback; stopped (`ray stop --force`) after."""
    from spacy_gdcws.app.corpus.session import LOOPBACK

    if ray.is_initialized():
        ray.shutdown()
    temp = tempfile.mkdtemp(prefix="rc", dir="/tmp")  # short: Ray's socket paths must fit in 107 characters
    port = free_port()
    env = {k: v for k, v in os.environ.items() if k != "RAY_ADDRESS"}
    env["RAY_USAGE_STATS_ENABLED"] = "0"
    loopback = ["--node-ip-address", LOOPBACK, "--disable-usage-stats"]
    head = ["--port", str(port), "--num-cpus", "0", "--include-dashboard", "false", "--temp-dir", temp, *loopback]
    with ray_cluster(head, [["--address", f"{LOOPBACK}:{port}", "--num-cpus", "2", *loopback]], env, temp):
        yield f"{LOOPBACK}:{port}"


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    """Six files of 1,500 lines and the single-process `segment` output of each."""
    root = tmp_path_factory.mktemp("cluster_corpus")
    _, expected = segmented_corpus(root, 6, 1500)
    return root, expected


def _command(cluster: str, source: Path, out: Path) -> list:
    return [sys.executable, "-m", "spacy_gdcws", "segment-corpus", str(LEGACY_FIXTURE), str(source), str(out),
            "--address", cluster, "--actors", "2", "--batch-size", "100", "-q"]


def test_every_node_is_on_loopback_and_the_outputs_are_segments(cluster, corpus, tmp_path):
    root, expected = corpus
    import ipaddress

    ray.init(address=cluster, log_to_driver=False, _node_ip_address=cluster.split(":")[0])
    try:
        nodes = [n for n in ray.nodes() if n["Alive"]]
        assert len(nodes) == 2 and all(ipaddress.ip_address(n["NodeManagerAddress"]).is_loopback for n in nodes)
        assert sorted(n["Resources"].get("CPU", 0) for n in nodes) == [0, 2]
    finally:
        ray.shutdown()
    run = subprocess.run(_command(cluster, root / "in", tmp_path / "out"), capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr[-3000:]
    for name, data in expected.items():
        assert (tmp_path / "out" / name).read_bytes() == data, name
    manifest = json.loads((tmp_path / "out" / ".segment-corpus-manifest.json").read_text(encoding="utf8"))
    assert sorted(manifest["files"]) == sorted(expected)
    assert leftovers(tmp_path / "out") == []


def test_a_driver_killed_mid_run_then_the_same_command_finishes(cluster, corpus, tmp_path):
    """SIGKILL of the driver once parts are being written: no file is committed (each is committed
    whole at the end); the rerun takes over the dead driver's lock, clears its parts and writes every
    file exactly as `segment` does; nothing is left over."""
    root, expected = corpus
    out = tmp_path / "out"
    driver = subprocess.Popen(_command(cluster, root / "in", out), stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL, start_new_session=True)
    deadline = time.time() + 300
    while time.time() < deadline and not list(out.glob(".segment-corpus-parts/*/*/*.part")):
        time.sleep(0.2)
    assert driver.poll() is None, "the run ended before it could be killed"
    os.killpg(driver.pid, signal.SIGKILL)
    driver.wait()
    assert not [p for p in out.glob("*.txt")] and (out / ".segment-corpus.lock").exists()
    run = subprocess.run(_command(cluster, root / "in", out), capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr[-3000:]
    for name, data in expected.items():
        assert (out / name).read_bytes() == data, name
    assert leftovers(out) == []


def test_a_second_driver_on_the_same_output_is_refused(cluster, corpus, tmp_path):
    root, _ = corpus
    out = tmp_path / "out"
    out.mkdir()
    lock = {"host": socket.gethostname(), "pid": os.getpid(), "started": time.time()}  # a live driver
    (out / ".segment-corpus.lock").write_text(json.dumps(lock), encoding="utf8")
    run = subprocess.run(_command(cluster, root / "in", out), capture_output=True, text=True, timeout=600)
    assert run.returncode == 1 and "E129" in run.stderr + run.stdout
    assert not [p for p in out.glob("*.txt")]
