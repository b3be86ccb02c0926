"""What the Ray cluster tests share: free ports, the `ray` command, a cluster of `ray start` nodes,
a corpus with `segment`'s outputs, and what a run may leave behind."""
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
