"""Opening input files safely (regular files only, checked before any read), and writing
output files atomically.

A FIFO, a device such as ``/dev/zero``, a directory or a symlink loop given as
a model or weights file would make a naive ``open().read()`` hang, allocate
without bound or crash; these helpers refuse them with a clear
:class:`~irrun.errors.InputFileError` instead.
"""

from __future__ import annotations

import errno
import os
import stat

from irrun.errors import InputFileError

__all__ = ["regular_file_size", "read_regular_file", "write_output_file"]


def regular_file_size(path: str, what: str) -> int:
    """Return the size of ``path`` after checking it is a readable regular file.

    ``what`` names the file's role in messages (``"model"``, ``"weights"``).
    """
    try:
        info = os.stat(path)
    except FileNotFoundError:
        raise InputFileError(f"{what} file {path!r} does not exist", file=path) from None
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise InputFileError(
                f"{what} file {path!r} is a symbolic link loop", file=path
            ) from None
        raise InputFileError(
            f"cannot access {what} file {path!r}: {exc.strerror}", file=path
        ) from None
    if stat.S_ISDIR(info.st_mode):
        raise InputFileError(
            f"{what} file {path!r} is a directory; give the path of the file itself",
            file=path,
        )
    if not stat.S_ISREG(info.st_mode):
        kind = "FIFO" if stat.S_ISFIFO(info.st_mode) else "device or special file"
        raise InputFileError(
            f"{what} file {path!r} is a {kind}, not a regular file; irrun reads only regular files",
            file=path,
        )
    if not os.access(path, os.R_OK):
        raise InputFileError(f"{what} file {path!r} is not readable (permission denied)", file=path)
    return info.st_size


def read_regular_file(path: str, what: str) -> bytes:
    """Read the whole of a regular file (see :func:`regular_file_size` for the checks)."""
    regular_file_size(path, what)
    # O_NONBLOCK: if the path was swapped for a FIFO after the check, open() must not hang.
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError as exc:
        raise InputFileError(
            f"cannot open {what} file {path!r}: {exc.strerror}", file=path
        ) from None
    with os.fdopen(fd, "rb") as handle:
        if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode):
            raise InputFileError(f"{what} file {path!r} is not a regular file", file=path)
        try:
            return handle.read()
        except OSError as exc:  # e.g. /proc files that refuse to be read
            raise InputFileError(
                f"cannot read {what} file {path!r}: {exc.strerror or exc}", file=path
            ) from None


def write_output_file(path, content) -> None:
    """Write ``content`` (bytes, text, or a callable that writes to a binary stream) to ``path``
    through a temporary file in the same folder and a rename, so no partial file is ever left.

    An existing target that is not a regular file (a device, FIFO, socket or symlink) is never
    replaced. Raises :class:`~irrun.errors.InputFileError` for an empty path, a missing folder,
    a directory or an unwritable place.
    """
    import tempfile

    path = os.fspath(path)
    if not path:
        raise InputFileError("the output path is empty; give a file name")
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        raise InputFileError(f"cannot write {path!r}: folder {folder!r} does not exist", file=path)
    if os.path.isdir(path):
        raise InputFileError(f"cannot write {path!r}: it is a directory", file=path)
    if os.path.lexists(path) and (os.path.islink(path) or not stat.S_ISREG(os.stat(path).st_mode)):
        raise InputFileError(
            f"cannot write {path!r}: it exists and is not a regular file (a device, FIFO, "
            "socket or link); irrun replaces only regular files",
            file=path,
        )
    try:
        handle, temporary = tempfile.mkstemp(prefix=".irrun-", dir=folder)
    except OSError as exc:
        raise InputFileError(
            f"cannot write {path!r}: {_why_not_writable(folder, exc)}", file=path
        ) from None
    try:
        # mkstemp makes the file private (0600); give it the mode a plain open() would: the
        # mode of the file it replaces, or 0666 less the umask.
        existing = os.stat(path).st_mode if os.path.lexists(path) else None
        with os.fdopen(handle, "wb") as stream:
            mode = stat.S_IMODE(existing) if existing is not None else 0o666 & ~_umask()
            os.fchmod(stream.fileno(), mode)
            if callable(content):
                content(stream)
            else:
                stream.write(content.encode("utf-8") if isinstance(content, str) else content)
        os.replace(temporary, path)
    except OSError as exc:
        os.unlink(temporary)
        raise InputFileError(f"cannot write {path!r}: {exc.strerror or exc}", file=path) from None
    except BaseException:
        os.unlink(temporary)
        raise


def _umask() -> int:
    """The process's umask, read without changing it where the system allows (Linux's
    /proc), else by setting and restoring it."""
    try:
        with open("/proc/self/status", encoding="ascii", errors="replace") as status:
            for line in status:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


#: File systems whose folders are views of the kernel's state, not places for files.
_KERNEL_FILE_SYSTEMS = {"proc", "sysfs", "devpts", "cgroup", "cgroup2", "debugfs", "tracefs",
                        "securityfs", "pstore", "bpf", "configfs", "efivarfs", "fusectl",
                        "binfmt_misc", "mqueue", "hugetlbfs"}  # fmt: skip


def _why_not_writable(folder: str, exc: OSError) -> str:
    """Why no file can be created in ``folder`` (which exists), in words."""
    kind = _file_system_of(folder)
    if kind in _KERNEL_FILE_SYSTEMS:
        return (
            f"folder {folder!r} is not a regular folder but part of the kernel's {kind} file "
            "system, where no file can be created; write somewhere else"
        )
    if exc.errno in (errno.EACCES, errno.EPERM):
        return f"folder {folder!r} is not writable (permission denied)"
    if exc.errno == errno.EROFS:
        return f"folder {folder!r} is on a read-only file system"
    if exc.errno == errno.ENOENT:  # it exists, yet refuses new entries
        return f"folder {folder!r} is not a regular folder: no file can be created in it"
    return f"no file can be created in folder {folder!r}: {exc.strerror}"


def _file_system_of(folder: str) -> str | None:
    """The type of the file system holding ``folder`` (Linux: from /proc/self/mounts)."""
    try:
        with open("/proc/self/mounts", encoding="utf-8", errors="replace") as mounts:
            entries = [line.split()[1:3] for line in mounts if len(line.split()) > 2]
    except OSError:
        return None
    resolved = os.path.realpath(folder)
    best, kind = "", None
    for mount_point, file_system in entries:
        mount_point = mount_point.replace("\\040", " ")
        inside = resolved == mount_point or resolved.startswith(mount_point.rstrip("/") + "/")
        if inside and len(mount_point) >= len(best):
            best, kind = mount_point, file_system
    return kind
