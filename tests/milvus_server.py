"""A real Milvus standalone server (the ``milvus`` package's ``milvus-server``: Milvus 2.3.5 with embedded
etcd) for the tests and benchmarks, reachable on one loopback port of this machine and nowhere else.

Milvus listens on every interface (``*:19530``, ``*:9091`` and seven internal ports; no setting narrows it)
and its embedded etcd always takes 127.0.0.1:2379. So each start of the server runs in a new network
namespace of its own, which holds only a loopback: nothing outside can reach it, two servers never fight
over a port, and a restart after kill -9 does not find its ports held by the dead one's connections (in
TIME_WAIT, which made ``milvus-server`` move to other ports). A bridge process holds a listening socket
on 127.0.0.1 (port 0: the kernel's free port, held from the start) in this machine's namespace and relays
each connection into the namespace of the server of the moment, so the URI outlives restarts. The server
is also the first process of a process namespace, held by a process that dies with the test run: a run
that is killed leaves no server behind. Creating the namespaces needs root (as CI has); elsewhere the
tests that need them skip.

    python tests/milvus_server.py DATA_DIR     # start one by hand; Ctrl-C stops it
"""

from __future__ import annotations

import contextlib
import ctypes
import fcntl
import os
import selectors
import signal
import socket
import struct
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path

INNER_PORTS = (19530, 9091)  # gRPC, and the health endpoint: the server's defaults inside its namespace
ROOT_TOKEN = "root:Milvus"  # the server's built-in administrator (authorization is on)
CLONE_NEWNET, CLONE_NEWPID, PR_SET_PDEATHSIG = 0x40000000, 0x20000000, 1


class Unavailable(RuntimeError):
    """This machine cannot run the server (no network namespaces, or the package is missing)."""


class MilvusServer:
    """``start()`` / ``kill()`` (SIGKILL, as a crash) / ``start()`` again on the same data / ``stop()``
    (SIGINT to ``milvus-server``, which stops the server). :attr:`uri` stays the same across restarts."""

    def __init__(self, data_dir: Path, start_timeout: float = 240.0) -> None:
        self.data_dir = Path(data_dir)
        self.start_timeout = start_timeout
        self.bridge: subprocess.Popen[str] | None = None
        self.proc: subprocess.Popen[bytes] | None = None
        self.ports: tuple[int, int] = (0, 0)

    @property
    def uri(self) -> str:
        return f"http://127.0.0.1:{self.ports[0]}"

    def _bridge(self) -> None:
        self.bridge = subprocess.Popen(
            [sys.executable, __file__, "--bridge", *map(str, INNER_PORTS)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        line = self.bridge.stdout.readline() if self.bridge.stdout else ""
        self.ports = tuple(int(p) for p in line.split()[1:])  # type: ignore[assignment]

    def start(self) -> MilvusServer:
        """Start the server in a new namespace (the bridge first, once), and wait until it is healthy."""
        exe = Path(sys.executable).with_name("milvus-server")
        if not exe.is_file():
            raise Unavailable(f"{exe} not found: pip install milvus==2.3.5 (make setup does)")
        if self.bridge is None:
            self._bridge()
        self.data_dir.mkdir(parents=True, exist_ok=True)
        log = open(self.data_dir / "milvus-server.log", "ab")  # noqa: SIM115 - the child keeps it
        cmd = [sys.executable, __file__, "--netns-exec", str(exe), "--data", str(self.data_dir),
               "--authorization-enabled", "true"]  # fmt: skip
        self.proc = subprocess.Popen(cmd, stdout=log, stderr=log, cwd=self.data_dir)
        log.close()
        mine = os.readlink("/proc/self/ns/net")
        deadline = time.monotonic() + self.start_timeout
        while True:  # the child moves to its new namespace, then execs milvus-server
            with contextlib.suppress(OSError):
                if os.readlink(f"/proc/{self.proc.pid}/ns/net") != mine:
                    break
            if self.proc.poll() is not None or time.monotonic() > deadline:
                raise Unavailable(f"no network namespace for the Milvus server: {self._log_tail()}")
            time.sleep(0.05)
        self.bridge.stdin.write(f"{self.proc.pid}\n")  # type: ignore[union-attr]
        self.bridge.stdin.flush()  # type: ignore[union-attr]
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"milvus-server exited {self.proc.returncode}: {self._log_tail()}")
            health = f"http://127.0.0.1:{self.ports[1]}/healthz"
            with contextlib.suppress(OSError), urllib.request.urlopen(health, timeout=5) as r:
                if b"OK" in r.read():
                    return self
            time.sleep(0.5)
        self.stop()
        raise TimeoutError(f"Milvus did not become healthy in {self.start_timeout:g} s")

    def _log_tail(self) -> str:
        with contextlib.suppress(OSError):
            return (self.data_dir / "milvus-server.log").read_text(errors="replace")[-500:]
        return ""

    def wrapper_pid(self) -> int | None:
        """The ``milvus-server`` wrapper's process id (the holder's child, first of its namespaces)."""
        return _child(self.proc.pid) if self.proc is not None else None

    def server_pid(self) -> int | None:
        """The ``milvus`` binary's process id (the child of the ``milvus-server`` wrapper)."""
        wrapper = self.wrapper_pid()
        return _child(wrapper) if wrapper else None

    def rss_bytes(self, peak: bool = False) -> int:
        """Resident memory of the server (``peak``: its high-water mark)."""
        pid = self.server_pid()
        key = "VmHWM:" if peak else "VmRSS:"
        with contextlib.suppress(OSError):
            for line in Path(f"/proc/{pid}/status").read_text().splitlines():
                if line.startswith(key):
                    return int(line.split()[1]) * 1024
        return 0

    def kill(self) -> None:
        """kill -9 the server (a crash: nothing flushed), then its wrapper (and with it the namespace)."""
        for pid in (self.server_pid(), self.wrapper_pid()):
            if pid:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)
        if self.proc is not None:
            self.proc.wait(timeout=30)
            self.proc = None

    def stop(self) -> None:
        """SIGINT to ``milvus-server`` (it stops the server), then the bridge."""
        if self.proc is not None:
            self.proc.send_signal(signal.SIGINT)
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.kill()
            self.proc = None
        if self.bridge is not None:
            self.bridge.terminate()  # its threads are daemons: it ends with its main thread
            self.bridge.wait(timeout=10)
            self.bridge = None


# ------------------------------------------------------------------ the bridge (a process of its own)


def _loopback_up() -> None:
    """``ip link set lo up`` by ioctl (no iproute2 needed)."""
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        ifreq = struct.pack("16sH14s", b"lo", 0, b"")
        flags = struct.unpack("16sH", fcntl.ioctl(s, 0x8913, ifreq)[:18])[1]  # SIOCGIFFLAGS
        fcntl.ioctl(s, 0x8914, struct.pack("16sH14s", b"lo", flags | 1, b""))  # SIOCSIFFLAGS, IFF_UP
    finally:
        s.close()


def _pump(a: socket.socket, b: socket.socket) -> None:
    sel = selectors.DefaultSelector()
    sel.register(a, selectors.EVENT_READ, b)
    sel.register(b, selectors.EVENT_READ, a)
    try:
        while True:
            for key, _ in sel.select():
                data = key.fileobj.recv(1 << 16)  # type: ignore[union-attr]
                if not data:
                    return
                key.data.sendall(data)
    except OSError:
        return
    finally:
        a.close()
        b.close()


def _serve(listener: socket.socket, inner: int, target: dict) -> None:
    libc = ctypes.CDLL(None, use_errno=True)
    joined = None
    while True:
        client, _ = listener.accept()
        try:
            if target.get("fd") is None:
                raise OSError("no server yet")
            if joined != target["fd"]:  # this thread's namespace: the current server's
                if libc.setns(target["fd"], CLONE_NEWNET) != 0:
                    raise OSError(ctypes.get_errno(), "setns")
                joined = target["fd"]
            server = socket.create_connection(("127.0.0.1", inner), timeout=5)
            server.settimeout(None)
        except OSError:  # the server is down: the client sees its connection closed
            client.close()
            continue
        threading.Thread(target=_pump, args=(client, server), daemon=True).start()


def bridge(inner_ports: list[int]) -> None:
    """Listen on loopback ports of this namespace; each line on stdin is the process id of the server
    whose namespace connections go to from then on."""
    listeners, target = [], {}
    for inner in inner_ports:
        s = socket.socket()
        s.bind(("127.0.0.1", 0))
        s.listen(64)
        listeners.append(s)
        threading.Thread(target=_serve, args=(s, inner, target), daemon=True).start()
    print("PORTS", *(s.getsockname()[1] for s in listeners), flush=True)
    for line in sys.stdin:
        old = target.get("fd")
        target["fd"] = os.open(f"/proc/{int(line)}/ns/net", os.O_RDONLY)
        if old is not None:
            os.close(old)  # an open handle would keep the dead server's namespace alive


def _child(pid: int) -> int | None:
    with contextlib.suppress(OSError, ValueError):
        children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
        return int(children[0]) if children else None
    return None


def netns_exec(argv: list[str]) -> None:
    """Hold new network and process namespaces and run ``argv`` as the first process of both: when it
    dies, the kernel ends everything it started (a killed test run leaves no server behind), and it is
    sent SIGINT when this holder dies, as this holder is when the test process does."""
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.unshare(CLONE_NEWNET | CLONE_NEWPID) != 0:
        sys.exit(f"unshare(CLONE_NEWNET | CLONE_NEWPID): {os.strerror(ctypes.get_errno())}")
    _loopback_up()
    libc.prctl(PR_SET_PDEATHSIG, signal.SIGINT)  # the test process died: stop, as on Ctrl-C
    child = os.fork()
    if child == 0:
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
        os.execv(argv[0], argv)
    for sig in (signal.SIGINT, signal.SIGTERM):  # passed on: the wrapper stops the server on SIGINT
        signal.signal(sig, lambda *_: os.kill(child, signal.SIGINT))
    while True:
        with contextlib.suppress(InterruptedError):
            _, status = os.waitpid(child, 0)
            sys.exit(os.waitstatus_to_exitcode(status))


if __name__ == "__main__":
    if sys.argv[1:2] == ["--bridge"]:
        bridge([int(p) for p in sys.argv[2:]])
    elif sys.argv[1:2] == ["--netns-exec"]:
        netns_exec(sys.argv[2:])
    else:
        srv = MilvusServer(Path(sys.argv[1])).start()
        print(f"Milvus at {srv.uri} (token {ROOT_TOKEN}); Ctrl-C stops it", flush=True)
        try:
            signal.pause()
        except KeyboardInterrupt:
            pass
        finally:
            srv.stop()
