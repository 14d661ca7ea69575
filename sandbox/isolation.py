"""The isolation layers of a python worker, each detected, applied and reported.

`prepare_worker` runs in a freshly forked worker before it is handed out (nothing tenant-
specific is known yet), seccomp filter included, so a run pays none of it. `bind_limits` runs
when the first job arrives (memory, and the worker's CPU budget) and `limit_run_cpu` before
every run, each before the tenant's code is compiled. Order matters: privileges dropped
before no-new-privs and seccomp, and any thread the worker needs started before seccomp (the
filter forbids creating one, and is applied to every thread of the process).

Memory is bounded per runtime: a python worker's whole address space (RLIMIT_AS), a wasm
worker's writable memory (RLIMIT_DATA), because wasmtime reserves gigabytes of address space
per linear memory and makes it writable only as the guest grows it; the store's own memory
limit is the inner layer there.
"""

from __future__ import annotations

import ctypes
import math
import os
import resource
import signal
from collections.abc import Callable
from dataclasses import dataclass

from sandbox import seccomp
from sandbox.contract import RuntimeName

_PR_SET_PDEATHSIG, _PR_SET_NO_NEW_PRIVS = 1, 38
_CLONE_NEWNET, _CLONE_NEWIPC = 0x40000000, 0x08000000
_LIBC = ctypes.CDLL(None, use_errno=True)


@dataclass(frozen=True)
class Layers:
    """Which layers this platform gives us (True = applied to every python worker)."""

    rlimits: bool = True
    closed_fds: bool = True
    empty_env: bool = True
    empty_cwd: bool = True
    chroot: bool = False
    drop_privileges: bool = False
    no_new_privs: bool = False
    seccomp: bool = False
    network_namespace: bool = False

    def as_dict(self) -> dict[str, bool]:
        return dict(vars(self))

    def missing(self) -> list[str]:
        return [name for name, present in self.as_dict().items() if not present]


def enter_namespaces() -> bool:
    """Move the zygote (and so every worker) into a fresh, empty network + IPC namespace."""
    return os.geteuid() == 0 and _LIBC.unshare(_CLONE_NEWNET | _CLONE_NEWIPC) == 0


def detect(has_netns: bool) -> Layers:
    """What can be applied here; called in the zygote before the first fork."""
    is_root = os.geteuid() == 0
    nnp = _LIBC.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0
    return Layers(
        chroot=is_root,
        drop_privileges=is_root,
        no_new_privs=nnp,
        seccomp=nnp and seccomp.is_supported(),
        network_namespace=has_netns,
    )


@dataclass(frozen=True)
class Baseline:
    """A worker's memory before any tenant code, so that a limit counts only what it adds."""

    #: Its address space (what RLIMIT_AS counts).
    vm_bytes: int
    #: Its writable private memory (what RLIMIT_DATA counts).
    data_bytes: int


def measure() -> Baseline:
    """This process's baseline, from /proc (readable until the worker is chrooted)."""
    with open("/proc/self/statm", "rb") as statm:
        fields = statm.read().split()
    page_bytes = os.sysconf("SC_PAGE_SIZE")
    return Baseline(int(fields[0]) * page_bytes, int(fields[5]) * page_bytes)


def prepare_worker(
    layers: Layers,
    keep_fds: frozenset[int],
    root_dir: str,
    uid: int,
    bpf: bytes,
    start_threads: Callable[[], None] = lambda: None,
) -> Baseline:
    """Confine a fresh worker before it has seen any tenant input: everything but the
    run-specific limits (`bind_limits`, `limit_run_cpu`). `start_threads` starts the
    threads the worker's runtimes need, before seccomp forbids it (and before measuring the
    baseline: a thread's stack is address space)."""
    start_threads()
    baseline = measure()
    _LIBC.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(null, fd)
    _close_all_but(keep_fds)
    os.environ.clear()
    os.chdir(root_dir)
    if layers.chroot:
        os.chroot(root_dir)
        os.chdir("/")
    if layers.drop_privileges:
        os.setgroups([])
        os.setresgid(uid, uid, uid)
        os.setresuid(uid, uid, uid)
    for limit in (resource.RLIMIT_FSIZE, resource.RLIMIT_NPROC, resource.RLIMIT_CORE):
        resource.setrlimit(limit, (0, 0))
    if layers.no_new_privs:
        _LIBC.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)
    if layers.seccomp:
        seccomp.install(bpf)
    return baseline


def _close_all_but(keep_fds: frozenset[int]) -> None:
    """Close every descriptor from 3 up except `keep_fds` (its socket, and read-only images
    of trusted compiled code it inherits from the zygote)."""
    low = 3
    for fd in sorted(keep_fds):
        os.closerange(low, fd)
        low = fd + 1
    os.closerange(low, 1 << 16)


#: CPU seconds a worker may spend, over all its runs, beyond its first run's limit.
WORKER_CPU_SPARE_S = 10


#: Writable memory a wasm worker may use beyond the guest's own limit: its host-side work
#: (JSON, answers to host calls, compiling a module, the interpreter's copy of the prelude).
WASM_HOST_SPARE_BYTES = 64 * 1024 * 1024


def bind_limits(runtime: RuntimeName, baseline: Baseline, memory_bytes: int, cpu_s: float) -> int:
    """Set the limits that hold for a worker's whole life, at its first run and before the
    tenant's code is compiled: memory soft = hard (see the module docstring for which), and
    a hard CPU limit that is the worker's total CPU budget. Only lowering is possible from
    here on (no CAP_SYS_RESOURCE after the privilege drop; seccomp lets prlimit64 touch this
    process only). Returns the CPU hard limit in seconds."""
    if runtime is RuntimeName.PYTHON:
        address_space = baseline.vm_bytes + memory_bytes
        resource.setrlimit(resource.RLIMIT_AS, (address_space, address_space))
    else:
        data = baseline.data_bytes + memory_bytes + WASM_HOST_SPARE_BYTES
        resource.setrlimit(resource.RLIMIT_DATA, (data, data))
    hard = math.ceil(cpu_used_s() + cpu_s) + WORKER_CPU_SPARE_S
    resource.setrlimit(resource.RLIMIT_CPU, (hard, hard))
    return hard


def limit_run_cpu(cpu_s: float, hard_s: int) -> float:
    """Arm SIGXCPU for this run: RLIMIT_CPU counts the process's whole life, so the soft limit
    is the CPU already used plus this run's limit, rounded up to the next whole second, under
    the worker's hard budget. Returns the CPU already used (the run's starting point)."""
    used = cpu_used_s()
    soft = min(hard_s, max(1, math.ceil(used + cpu_s)))
    resource.setrlimit(resource.RLIMIT_CPU, (soft, hard_s))
    return used


def cpu_used_s() -> float:
    """CPU seconds (user + system) this process has used so far."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime
