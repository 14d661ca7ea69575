"""A seccomp-BPF allow-list for python workers, built with ctypes (no extra dependency).

Installed in the worker after its resource limits are set and before tenant code is loaded,
on every thread of the worker at once (the wasm deadline timer starts before the filter).
Every system call not listed fails with EPERM (the script sees an OSError, the worker lives
on to report it); x32 and foreign-architecture calls kill the process. The list is what a
CPython interpreter needs to compute, allocate memory and talk over its already-open socket:
no open, no socket, no fork/clone, no exec, no kill, no ptrace; prlimit64 only on itself
(the run's limits are set after the filter is in, and can then only be lowered).
"""

from __future__ import annotations

import ctypes
import platform
import struct

_AUDIT_ARCH_X86_64 = 0xC000003E
_ALLOWED_X86_64 = (
    0,  # read
    1,  # write
    3,  # close
    5,  # fstat
    8,  # lseek
    9,  # mmap
    10,  # mprotect
    11,  # munmap
    12,  # brk
    13,  # rt_sigaction
    14,  # rt_sigprocmask
    15,  # rt_sigreturn
    17,  # pread64
    19,  # readv
    20,  # writev
    24,  # sched_yield
    35,  # nanosleep (sleeping only spends the run's own wall clock)
    25,  # mremap
    28,  # madvise
    39,  # getpid
    44,  # sendto
    45,  # recvfrom
    46,  # sendmsg
    47,  # recvmsg
    60,  # exit
    96,  # gettimeofday
    98,  # getrusage
    102,  # getuid
    104,  # getgid
    107,  # geteuid
    108,  # getegid
    131,  # sigaltstack
    186,  # gettid
    202,  # futex
    228,  # clock_gettime
    229,  # clock_getres
    230,  # clock_nanosleep
    231,  # exit_group
    262,  # newfstatat
    318,  # getrandom
)
_PRLIMIT64 = 302
_LD_W_ABS, _JEQ_K, _JGE_K, _RET_K = 0x20, 0x15, 0x35, 0x06
_RET_ALLOW, _RET_EPERM, _RET_KILL = 0x7FFF0000, 0x00050000 | 1, 0x80000000
_SYS_SECCOMP, _SECCOMP_SET_MODE_FILTER, _SECCOMP_FILTER_FLAG_TSYNC = 317, 1, 1
_LIBC = ctypes.CDLL(None, use_errno=True)


def is_supported() -> bool:
    """Seccomp filters are built for x86-64 Linux only; elsewhere the layer is reported absent."""
    return platform.system() == "Linux" and platform.machine() == "x86_64"


def _instruction(code: int, jt: int, jf: int, k: int) -> bytes:
    return struct.pack("HBBI", code, jt, jf, k)


def build_filter() -> bytes:
    """The BPF program (bytes of `struct sock_filter[]`); built once, before forking."""
    count = len(_ALLOWED_X86_64)
    program = [
        _instruction(_LD_W_ABS, 0, 0, 4),  # seccomp_data.arch
        _instruction(_JEQ_K, 0, count + 11, _AUDIT_ARCH_X86_64),
        _instruction(_LD_W_ABS, 0, 0, 0),  # seccomp_data.nr
        _instruction(_JGE_K, count + 7, 0, 0x40000000),  # x32 ABI -> EPERM
    ]
    program += [  # prlimit64 (how setrlimit is made) only on this process: pid argument 0
        _instruction(_JEQ_K, 0, 6, _PRLIMIT64),
        _instruction(_LD_W_ABS, 0, 0, 16),  # seccomp_data.args[0], low half
        _instruction(_JEQ_K, 0, 2, 0),
        _instruction(_LD_W_ABS, 0, 0, 20),  # high half
        _instruction(_JEQ_K, 1, 0, 0),
        _instruction(_RET_K, 0, 0, _RET_EPERM),
        _instruction(_RET_K, 0, 0, _RET_ALLOW),
    ]
    program += [_instruction(_JEQ_K, count - i, 0, nr) for i, nr in enumerate(_ALLOWED_X86_64)]
    program += [
        _instruction(_RET_K, 0, 0, _RET_EPERM),
        _instruction(_RET_K, 0, 0, _RET_ALLOW),
        _instruction(_RET_K, 0, 0, _RET_KILL),
    ]
    return b"".join(program)


class _SockFprog(ctypes.Structure):
    _fields_ = (("len", ctypes.c_ushort), ("filter", ctypes.c_char_p))


def install(program: bytes) -> None:
    """Load the filter into every thread of this process (needs no-new-privs or
    CAP_SYS_ADMIN); raises OSError."""
    fprog = _SockFprog(len(program) // 8, program)
    flags = _SECCOMP_FILTER_FLAG_TSYNC
    if _LIBC.syscall(_SYS_SECCOMP, _SECCOMP_SET_MODE_FILTER, flags, ctypes.byref(fprog)) != 0:
        errno = ctypes.get_errno()
        raise OSError(errno, "seccomp filter refused (on every thread)")
