"""The isolation layers of a python worker, each detected, applied and reported.

`prepare_worker` runs in a freshly forked worker before it is handed out (nothing tenant-
specific is known yet), seccomp filter included, so a run pays none of it. `bind_limits` runs
when the first job arrives (memory, and the worker's CPU budget) and `limit_run_cpu` before
every run, each before the tenant's code is compiled. Order matters: privileges dropped
before no-new-privs and seccomp.
"""

from __future__ import annotations

import ctypes
import math
import os
import resource
import signal
from dataclasses import dataclass

from sandbox import seccomp

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


def prepare_worker(layers: Layers, keep_fd: int, root_dir: str, uid: int, bpf: bytes) -> int:
    """Confine a fresh worker before it has seen any tenant input: everything but the
    run-specific limits (`bind_limits`, `limit_run_cpu`). Returns its virtual size before any
    tenant code, so that the memory limit counts only what the tenant's code adds."""
    with open("/proc/self/statm", "rb") as statm:
        baseline_vm_bytes = int(statm.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    _LIBC.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(null, fd)
    os.closerange(3, keep_fd)
    os.closerange(keep_fd + 1, 1 << 16)
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
    return baseline_vm_bytes


#: CPU seconds a worker may spend, over all its runs, beyond its first run's limit.
WORKER_CPU_SPARE_S = 10


def bind_limits(baseline_vm_bytes: int, memory_bytes: int, cpu_s: float) -> int:
    """Set the limits that hold for a worker's whole life, at its first run and before the
    tenant's code is compiled: address space soft = hard, and a hard CPU limit that is the
    worker's total CPU budget. Only lowering is possible from here on (no CAP_SYS_RESOURCE
    after the privilege drop; seccomp lets prlimit64 touch this process only). Returns the
    CPU hard limit in seconds."""
    address_space = baseline_vm_bytes + memory_bytes
    resource.setrlimit(resource.RLIMIT_AS, (address_space, address_space))
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
