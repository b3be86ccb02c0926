"""The Ray a corpus run starts or joins (`ray_session`), and the two lines of Ray's that a normal run
keeps off the user's terminal (#80).

- Ray >= 2.52 warns on every `ray.init` of a local Ray that token authentication is on by default
  (`RAY_AUTH_MODE` unset). The run keeps Ray's default (a token, on loopback) and does not repeat the
  notice: its logger is quiet for the run. Setting `RAY_AUTH_MODE` in the process instead would
  not do: Ray reads it when it is imported, and a driver and a GCS that disagree cannot talk.
- Ray >= 2.47 logs, at ERROR level, from its C++ core and once per driver process, that an actor
  whose constructor arguments are in the object store and that may restart could fail to restart
  if those arguments are lost (ray-project/ray#53727). Ray Data's actor pool always creates such
  actors: it puts its map transformer in the object store (ray-project/ray#57733, open). The run
  needs the restarts (a dead actor's chunks run again), and its driver holds the transformer for
  the whole run, so the notice says nothing about this run. It is spent before the pool starts:
  one such actor, never scheduled (it asks for a resource no node has) and killed at once, is
  created while the process's stderr goes to a temporary file, and every other line written there
  in that moment is passed on.
"""
import contextlib
import logging
import os
import sys
import tempfile
from typing import Any, Iterator, Optional

from spacy_gdcws.errors import Errors

# the address a Ray of the run's own runs on: a loopback address other than 127.0.0.1, which Ray
# replaces by this machine's routable address (`ray._private.services.resolve_ip_for_localhost`)
LOOPBACK = "127.0.0.2"
# words of the line spent (`core_worker.cc`), to tell it from any other line written meanwhile
RESTART_NOTICE = "has constructor arguments in the object store and max_restarts > 0"
# the logger of Ray's token notice (Ray >= 2.52)
TOKEN_LOGGER = "ray._private.authentication.authentication_token_setup"


def require_ray() -> Any:
    """Ray, imported; E070 (install the [ray] extra) where it is not installed, before any file is read."""
    try:
        import ray
    except ImportError as e:
        raise ImportError(Errors.E070.format(error=e)) from None
    return ray


@contextlib.contextmanager
def ray_session(address: Optional[str], num_cpus: Optional[int], progress: bool) -> Iterator[None]:
    """Ray for one run: the one this process already runs (left running), or one started (or joined,
    `address`) here and shut down at the end; the restart notice spent either way. A Ray of the run's
    own stays on loopback (its nodes and actors on LOOPBACK, not this machine's interfaces); a cluster
    on a loopback address runs here: the driver joins it there. Ray's logs go to its session folder;
    `progress` lets its INFO lines through."""
    import ray

    if ray.is_initialized():
        spend_restart_notice()
        yield
        return
    host = _loopback_host(address)
    local = {"_node_ip_address": host or LOOPBACK} if host or not address else {}
    token_logger = logging.getLogger(TOKEN_LOGGER)
    level = token_logger.level
    token_logger.setLevel(logging.ERROR)
    try:
        ray.init(address=address, num_cpus=num_cpus, include_dashboard=False, log_to_driver=False,
                 ignore_reinit_error=True, logging_level=logging.INFO if progress else logging.ERROR, **local)
    finally:
        token_logger.setLevel(level)
    try:
        spend_restart_notice()
        yield
    finally:
        ray.shutdown()


def spend_restart_notice() -> None:
    """Spend Ray's once-a-process notice about restartable actors with arguments in the object store
    (see the module docstring): create one such actor, never scheduled, with stderr (file descriptor 2)
    going to a temporary file, kill it, and write every other line of that file to stderr."""
    import ray

    @ray.remote(num_cpus=0, resources={"spacy_gdcws_no_such_resource": 1}, max_restarts=1)
    class _NeverScheduled:
        def __init__(self, argument: object) -> None:
            self.argument = argument

    argument = ray.put(b"")
    sys.stderr.flush()
    saved = os.dup(2)
    with tempfile.TemporaryFile() as caught:
        try:
            os.dup2(caught.fileno(), 2)
            actor = _NeverScheduled.remote(argument)
        finally:
            os.dup2(saved, 2)
            os.close(saved)
        ray.kill(actor)
        caught.seek(0)
        others = [line for line in caught.read().splitlines(keepends=True) if RESTART_NOTICE.encode() not in line]
    if others:
        sys.stderr.flush()
        os.write(2, b"".join(others))


def _loopback_host(address: Optional[str]) -> Optional[str]:
    """The host of a cluster address ("127.0.0.2:6379") where it is a loopback address, else None."""
    import ipaddress

    host = (address or "").rsplit(":", 1)[0].strip("[]")
    try:
        return host if ipaddress.ip_address(host).is_loopback else None
    except ValueError:
        return None
