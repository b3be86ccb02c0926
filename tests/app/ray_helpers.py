"""What the Ray cluster tests share: free ports, the `ray` command, a cluster of `ray start` nodes,
a corpus with `segment`'s outputs, a full disk injected into every process of a run, and what a run
may leave behind."""
import os
import shutil
import socket
import subprocess
import sys
from contextlib import contextmanager
from pathlib import Path
from typing import Dict, Iterator, List, Sequence, Tuple

from tests.util import LEGACY_FIXTURE, ROOT


def free_port(host: str = "127.0.0.1") -> int:
    with socket.socket() as s:
        s.bind((host, 0))
        return s.getsockname()[1]


def ray_cli(*args: str, env: dict, check: bool = True) -> subprocess.CompletedProcess:
    """`ray ARGS` (the `ray` beside this interpreter), asserted to succeed where `check`."""
    ray_bin = Path(sys.executable).with_name("ray")
    run = subprocess.run([str(ray_bin) if ray_bin.exists() else "ray", *args], capture_output=True, text=True,
                         env=env, timeout=300)
    if check:
        assert run.returncode == 0, run.stdout[-1500:] + run.stderr[-1500:]
    return run


@contextmanager
def ray_cluster(head: Sequence[str], workers: Sequence[Sequence[str]], env: dict, temp: str) -> Iterator[None]:
    """A cluster of `ray start --head HEAD` and one `ray start ARGS` per worker node, with token
    authentication off in the nodes, their drivers and this process (Ray turns it on where a token
    file exists and RAY_AUTH_MODE is unset: the head would refuse the worker nodes); after,
    `ray stop --force`, `temp` (the head's --temp-dir) removed and RAY_AUTH_MODE restored."""
    previous = os.environ.get("RAY_AUTH_MODE")
    os.environ["RAY_AUTH_MODE"] = env["RAY_AUTH_MODE"] = "disabled"
    try:
        ray_cli("start", "--head", *head, env=env)
        for args in workers:
            ray_cli("start", *args, env=env)
        yield
    finally:
        ray_cli("stop", "--force", env=env, check=False)
        shutil.rmtree(temp, ignore_errors=True)
        if previous is None:
            os.environ.pop("RAY_AUTH_MODE", None)
        else:
            os.environ["RAY_AUTH_MODE"] = previous


def segmented_corpus(root: Path, n_files: int, n_lines: int) -> Tuple[Path, Dict[str, bytes]]:
    """`n_files` files of `n_lines` lines under `root/in` (UD test sentences cut to 24 characters,
    empty lines among them) and the single-process `segment` output of each, by name."""
    from spacy_gdcws.readers import read_conll

    sents = ["".join(s.words) for s in read_conll(ROOT / "assets" / "ud_zh" / "zh_gsdsimp-ud-test.conllu")]
    pieces = [s[i: i + 24] for s in sents for i in range(0, len(s), 24)]
    expected = {}
    for k in range(n_files):
        lines = [pieces[(k * n_lines + i) % len(pieces)] if i % 89 else "" for i in range(n_lines)]
        path = root / "in" / f"f{k}.txt"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("\n".join(lines) + "\n", encoding="utf8")
        out = root / "single" / path.name
        run = subprocess.run([sys.executable, "-m", "spacy_gdcws", "segment", str(LEGACY_FIXTURE), str(path), str(out),
                              "-q"], capture_output=True, text=True)
        assert run.returncode == 0, run.stderr
        expected[path.name] = out.read_bytes()
    return root / "in", expected


def leftovers(out: Path) -> List[str]:
    """What a finished run must not leave in its output folder: parts, temporary files, the lock."""
    return sorted(str(p.relative_to(out)) for p in out.rglob("*")
                  if ".segment-corpus-parts" in str(p) or p.name.endswith(".tmp") or p.name == ".segment-corpus.lock")


#: imported by every Python process of a run whose PYTHONPATH names its folder (the driver, Ray's
#: workers): while the marker file exists, the parts of every input file but the first are refused
#: with ENOSPC as a full disk refuses them, where the workers write (`workers.atomic_write_fs`)
_FULL_DISK_SITE = """
import os
import sys

_MARKER = os.environ.get("GDCWS_TEST_FULL_DISK")


def _full_disk_write(write):
    import errno

    def full(filesystem, path, data):
        if os.path.exists(_MARKER) and "/00000000/" not in path:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), path)
        return write(filesystem, path, data)

    return full


class _PatchAfterImport:
    def find_spec(self, name, path=None, target=None):
        if name != "spacy_gdcws.app.corpus.workers":
            return None
        sys.meta_path.remove(self)
        import importlib.util

        spec = importlib.util.find_spec(name)
        execute = spec.loader.exec_module

        def exec_module(module):
            execute(module)
            module.atomic_write_fs = _full_disk_write(module.atomic_write_fs)

        spec.loader.exec_module = exec_module
        return spec


if _MARKER:
    sys.meta_path.insert(0, _PatchAfterImport())
"""


def full_disk_env(folder: Path, marker: Path) -> Dict[str, str]:
    """The environment of a run whose part writes fail with ENOSPC (but the first input file's) while
    `marker` exists (a `sitecustomize` in `folder`, first on PYTHONPATH): the fault a full output
    disk gives, where the test cannot mount a small one."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "sitecustomize.py").write_text(_FULL_DISK_SITE, encoding="utf8")
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(folder), str(ROOT), env.get("PYTHONPATH", "")) if p)
    env["GDCWS_TEST_FULL_DISK"] = str(marker)
    return env
