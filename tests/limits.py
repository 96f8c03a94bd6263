"""Limits a test puts on a process it starts, to meet what a full disk does without filling one."""

import resource
import signal


def files_limited_to(size: int):
    """A `preexec_fn`: the child may write files of at most `size` bytes; a write past it fails with
    EFBIG ("File too large") as a write to a full disk fails with ENOSPC. SIGXFSZ is ignored (an
    ignored signal stays ignored across exec) so the write returns its error instead of killing the child."""

    def limit() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (size, size))

    return limit
