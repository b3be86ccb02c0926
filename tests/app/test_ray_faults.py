"""`segment-corpus` under the faults a user who outgrows one machine meets (#70), each ending with
outputs byte for byte `segment`'s (every input line once, in order), a consistent manifest and no
staging file left:

- a worker node lost mid-run (its raylet SIGKILLed while its actors hold chunks), on a cluster of a
  head and two worker nodes, every node on loopback;
- an actor killed on the cluster;
- `ray job submit` against the cluster's job API (the dashboard bound to loopback);
- the output filesystem full mid-run (a small tmpfs where the test may mount one, and ENOSPC injected
  into the workers' writes everywhere): one coded line (E103), nothing committed, and the rerun after
  space is freed completes;
- `s3://` inputs and outputs against an S3-compatible server on 127.0.0.1 (moto's server mode),
  pyarrow's own S3 client end to end, with a resume and a deleted output.
"""
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from tests.app.ray_helpers import free_port, full_disk_env, leftovers, ray_cli, ray_cluster, segmented_corpus
from tests.util import LEGACY_FIXTURE

ray = pytest.importorskip("ray")

pytestmark = pytest.mark.slow
LOOPBACK = "127.0.0.2"


def _has_dashboard() -> bool:
    """Whether ray[default] (the dashboard and its job API: aiohttp) is installed."""
    import importlib.util

    return importlib.util.find_spec("aiohttp") is not None


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    """A head (no CPU; the dashboard and its job API on loopback where ray[default] is installed)
    and two worker nodes of 2 CPUs, every node on 127.0.0.2; the worker nodes read the crash marker
    of `workers.CRASH_MARKER_ENV` from this module's folder. Yields (address, dashboard URL or None,
    the node manager port of worker node 2, the crash marker path, env)."""
    from spacy_gdcws.app.corpus.workers import CRASH_MARKER_ENV

    if ray.is_initialized():
        ray.shutdown()
    temp = tempfile.mkdtemp(prefix="rf", dir="/tmp")  # Ray's socket paths must fit in 107 characters
    marker = str(tmp_path_factory.mktemp("faults") / "crash")
    port, second_manager = free_port(), free_port()
    env = {k: v for k, v in os.environ.items() if k != "RAY_ADDRESS"}
    env.update({"RAY_USAGE_STATS_ENABLED": "0", CRASH_MARKER_ENV: marker})
    loopback = ["--node-ip-address", LOOPBACK, "--disable-usage-stats"]
    dashboard = None
    head = ["--port", str(port), "--num-cpus", "0", "--temp-dir", temp, *loopback]
    if _has_dashboard():
        dashboard_port = free_port()
        head += ["--include-dashboard", "true", "--dashboard-host", LOOPBACK, "--dashboard-port", str(dashboard_port)]
        dashboard = f"http://{LOOPBACK}:{dashboard_port}"
    else:
        head += ["--include-dashboard", "false"]
    worker = ["--address", f"{LOOPBACK}:{port}", "--num-cpus", "2", *loopback]
    with ray_cluster(head, [worker, worker + ["--node-manager-port", str(second_manager)]], env, temp):
        yield f"{LOOPBACK}:{port}", dashboard, second_manager, marker, env


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    """Eight files of 3,000 lines and the single-process `segment` output of each."""
    return segmented_corpus(tmp_path_factory.mktemp("fault_corpus"), 8, 3000)


def _command(source, out, *extra: str) -> list:
    return [sys.executable, "-m", "spacy_gdcws", "segment-corpus", str(LEGACY_FIXTURE), str(source), str(out),
            "--batch-size", "100", "-q", *extra]


def _check(out: Path, expected: dict) -> None:
    """Every output is `segment`'s byte for byte, the manifest names each, nothing is left over."""
    for name, data in expected.items():
        assert (out / name).read_bytes() == data, name
    manifest = json.loads((out / ".segment-corpus-manifest.json").read_text(encoding="utf8"))
    assert sorted(manifest["files"]) == sorted(expected)
    assert all(manifest["files"][n]["output_size"] == len(d) for n, d in expected.items())
    assert leftovers(out) == []


def _wait_for_parts(out: Path, driver: subprocess.Popen, timeout: float = 300) -> None:
    deadline = time.time() + timeout
    while time.time() < deadline and not list(out.glob(".segment-corpus-parts/*/*/*.part")):
        assert driver.poll() is None, "the run ended before the fault"
        time.sleep(0.2)


def _raylet_pid(node_manager_port: int) -> int:
    """The pid of the raylet listening on `node_manager_port` (read off /proc)."""
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if cmdline and cmdline[0].endswith(b"raylet") and f"--node_manager_port={node_manager_port}".encode() in cmdline:
            return int(entry.name)
    raise AssertionError(f"no raylet on port {node_manager_port}")


def test_70_a_worker_node_lost_mid_run(cluster, corpus, tmp_path):
    """A worker node's raylet SIGKILLed while its actors hold chunks: Ray restarts the actors on the
    other node and retries the lost tasks, and the run finishes with every line once, in order; where
    it cannot, the driver fails and the same command rerun completes (docs/segment-corpus.md)."""
    address, _, second_manager, _, env = cluster
    source, expected = corpus
    out = tmp_path / "out"
    driver = subprocess.Popen(_command(source, out, "--address", address, "--actors", "2"), env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    _wait_for_parts(out, driver)
    os.kill(_raylet_pid(second_manager), signal.SIGKILL)
    stdout, stderr = driver.communicate(timeout=600)
    print(f"node lost: the run exited {driver.returncode}", stderr.strip().splitlines()[-1:] if driver.returncode else "")
    if driver.returncode != 0:  # a coded error, then the rerun
        assert stderr.strip().startswith("✘ [E") or "Error" in stderr, stderr[-2000:]
        assert not list(out.glob("*.txt"))
        rerun = subprocess.run(_command(source, out, "--address", address, "--actors", "1"), env=env,
                               capture_output=True, text=True, timeout=600)
        assert rerun.returncode == 0, rerun.stderr[-3000:]
    _check(out, expected)


def test_70_an_actor_killed_on_the_cluster(cluster, corpus, tmp_path):
    """An actor's process dies (the crash marker: the first chunk that finds it kills its process):
    Ray restarts it, its chunks run again, the outputs are exact."""
    address, _, _, marker, env = cluster
    source, expected = corpus
    Path(marker).write_text("", encoding="utf8")
    run = subprocess.run(_command(source, tmp_path / "out", "--address", address, "--actors", "1"), env=env,
                         capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr[-3000:]
    assert not Path(marker).exists()  # an actor did find it, and died
    _check(tmp_path / "out", expected)


def test_70_ray_job_submit(cluster, corpus, tmp_path):
    """`ray job submit` against the cluster's job API on loopback: the driver runs on the head, the
    outputs are exact."""
    address, dashboard, _, _, env = cluster
    if dashboard is None:
        pytest.skip("the job API needs Ray's dashboard (pip install 'ray[default]')")
    source, expected = corpus
    out = tmp_path / "out"
    submit = ray_cli("job", "submit", "--address", dashboard, "--", *_command(source, out, "--address", "auto",
                                                                              "--actors", "2"), env=env)
    assert "succeeded" in (submit.stdout + submit.stderr).lower(), submit.stdout[-2000:]
    _check(out, expected)


@pytest.fixture(params=["tmpfs", "injected"])
def full_disk(request, tmp_path):
    """An output folder whose disk fills mid-run, and how to free it: a real tmpfs of 1 MB (root and a
    kernel that let the test mount one; skipped elsewhere), and, everywhere, ENOSPC injected where the
    workers write their parts (`ray_helpers.full_disk_env`). Yields (output folder, the run's
    environment, a callable that frees the space)."""
    if request.param == "injected":
        marker = tmp_path / "disk-full"
        marker.touch()
        yield tmp_path / "out", full_disk_env(tmp_path / "site", marker), marker.unlink
        return
    mount = tmp_path / "disk"
    mount.mkdir()
    made = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", str(mount)], capture_output=True)
    if made.returncode != 0:
        pytest.skip("cannot mount a small tmpfs here (needs root): " + made.stderr.decode()[-200:])

    def grow() -> None:
        grown = subprocess.run(["mount", "-o", "remount,size=64m", str(mount)], capture_output=True)
        assert grown.returncode == 0, grown.stderr

    try:
        yield mount / "out", None, grow
    finally:
        subprocess.run(["umount", "-l", str(mount)], capture_output=True)


def test_70_the_output_disk_full_mid_run(corpus, full_disk):
    """The output folder's disk fills while parts are written: one coded line (E103 naming the output
    folder), no file committed, no part left; after space is freed the same command completes."""
    source, expected = corpus
    out, env, free = full_disk
    run = subprocess.run(_command(source, out, "--actors", "2"), capture_output=True, text=True, timeout=600, env=env)
    assert run.returncode == 1 and "Traceback" not in run.stderr, run.stderr[-3000:]
    # the report is one line, the last; Ray's C++ core may print its own line as the actors start
    # (its issue 53727: Ray Data passes an actor's arguments through the object store)
    lines = run.stderr.strip().splitlines()
    assert lines[-1].startswith("✘ [E103]") and str(out) in lines[-1], run.stderr[-3000:]
    assert [line for line in lines if "✘" in line or "ERROR" in line] == lines[-1:], run.stderr[-3000:]
    assert not list(out.glob("*.txt")) and leftovers(out) == []
    free()
    rerun = subprocess.run(_command(source, out, "--actors", "2"), capture_output=True, text=True, timeout=600,
                           env=env)
    assert rerun.returncode == 0, rerun.stderr[-3000:]
    _check(out, expected)


@pytest.fixture(scope="module")
def s3_server():
    """moto's S3 server on 127.0.0.1 (skipped where moto's server mode is not installed)."""
    beside = Path(sys.executable).with_name("moto_server")  # this interpreter's moto, before one on PATH
    server = str(beside) if beside.exists() else shutil.which("moto_server")
    if server is None:
        pytest.skip("moto's server mode is not installed (pip install 'moto[server]')")
    port = free_port()
    proc = subprocess.Popen([server, "-H", "127.0.0.1", "-p", str(port)], stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    deadline = time.time() + 60
    while time.time() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            break
        except OSError:
            time.sleep(0.2)
    else:
        proc.kill()
        pytest.skip("moto's server did not start")
    keys = {"AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing", "AWS_DEFAULT_REGION": "us-east-1"}
    previous = {k: os.environ.get(k) for k in keys}
    os.environ.update(keys)
    try:
        yield f"endpoint_override=127.0.0.1:{port}&scheme=http&region=us-east-1", {**os.environ, **keys}
    finally:
        proc.terminate()
        proc.wait(timeout=30)
        for k, v in previous.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def test_70_s3_inputs_and_outputs_resume_and_a_deleted_output(corpus, s3_server, tmp_path):
    """pyarrow's S3 client against an S3 server on loopback: the inputs read from a bucket, the
    outputs written to one are `segment`'s; a rerun skips every file; a deleted output is segmented
    again, alone."""
    import pyarrow.fs as pafs

    query, env = s3_server
    source, expected = corpus
    fs, _ = pafs.FileSystem.from_uri(f"s3://corpus?{query}&allow_bucket_creation=true")
    fs.create_dir("corpus")
    for name in expected:
        with fs.open_output_stream(f"corpus/in/{name}") as f:
            f.write((source / name).read_bytes())
    source, target = f"s3://corpus/in/?{query}", f"s3://corpus/out/?{query}"

    def run(*extra):
        out = subprocess.run(_command(source, target, "--actors", "2", *extra), capture_output=True, text=True,
                             env=env, timeout=600)
        assert out.returncode == 0, out.stderr[-3000:]
        return out

    def outputs():
        return {name: fs.open_input_stream(f"corpus/out/{name}").read() for name in expected}

    run()
    assert outputs() == expected
    manifest = json.loads(fs.open_input_stream("corpus/out/.segment-corpus-manifest.json").read())
    assert sorted(manifest["files"]) == sorted(expected)
    listed = [info.path for info in fs.get_file_info(pafs.FileSelector("corpus/out", recursive=True))]
    assert not [p for p in listed if ".segment-corpus-parts" in p or p.endswith((".tmp", ".lock"))]
    mtimes = {name: fs.get_file_info(f"corpus/out/{name}").mtime for name in expected}
    fs.delete_file("corpus/out/f3.txt")
    run()  # the resume: f3 again, alone
    assert outputs() == expected
    again = {name: fs.get_file_info(f"corpus/out/{name}").mtime for name in expected}
    assert [n for n in expected if again[n] != mtimes[n]] == ["f3.txt"]
