"""Output files, safe against accidents and hostile paths.

Every output of one command is checked before any work starts (folder,
permission, name length, not a device/FIFO/folder/socket, not a symbolic link, not an input file, not
another output of the same run); the contents are then written at the end as one transaction — each to a temporary
file beside its target, and only when every temporary is complete are they renamed over their
targets. Either all outputs appear or none does; an existing file is only ever replaced by a complete
new one. Temporaries are removed on every exit path, SIGTERM/SIGINT/SIGHUP included (the
signals are ``procure.common.runtime``'s); those left by a
process killed with SIGKILL are removed by the next run that writes into the same folder.
"""

from __future__ import annotations

import errno
import os
import re
import secrets
import stat
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from procure.common import runtime
from procure.common.errors import InputError, Problem
from procure.common.text import echo

from .reading import file_kind

#: temporaries are named ``.procure-<pid>-<random>.tmp`` so a later run can tell whose they are
_TMP = re.compile(r"^\.procure-(\d+)-[0-9a-f]{8}\.tmp$")


def _new_file_mode() -> int:
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask


def _name_max(folder: Path) -> int:
    try:
        return os.pathconf(folder, "PC_NAME_MAX")
    except (OSError, ValueError, AttributeError):
        return 255


@dataclass
class Target:
    path: Path
    what: str  # the option that named it, e.g. "--json"
    data: bytes | None = None
    new_folder: bool = False  # its folder does not exist yet and is created when writing


@dataclass
class Outputs:
    """The files one command writes, checked early and written together (see the module docstring).

    ``overwrite``: whether an existing regular file may be replaced (the template command refuses
    unless ``--force``)."""

    overwrite: bool = True
    targets: list[Target] = field(default_factory=list)

    # -- declaring and checking ------------------------------------------------------------------

    def add(self, path: str | Path, what: str) -> Target:
        """Declare an output file; raise InputError now if it could not be written."""
        target = Target(Path(path), what)
        self._check(target)
        self.targets.append(target)
        return target

    def add_folder(self, folder: str | Path, names: Iterable[str], what: str) -> list[Target]:
        """Declare files ``names`` inside ``folder``; the folder may be new if its parent exists."""
        folder = Path(folder)
        new = False
        try:
            st = os.stat(folder)
        except FileNotFoundError:
            parent = folder.parent
            if not parent.is_dir():
                raise InputError([Problem(str(folder), what, f"folder {str(parent)!r} does not exist")]) from None
            if not os.access(parent, os.W_OK | os.X_OK):
                raise InputError([Problem(str(folder), what, "no permission to create this folder")]) from None
            new = True
        else:
            if not stat.S_ISDIR(st.st_mode):
                raise InputError([Problem(str(folder), what, f"is {file_kind(st.st_mode)}; give a folder")])
        out = []
        for name in names:
            target = Target(folder / name, what, new_folder=new)
            if not new:
                self._check(target)
            else:
                self._check_name(target)
                self._check_duplicate(target)
            self.targets.append(target)
            out.append(target)
        return out

    def _check(self, t: Target) -> None:
        path, what = t.path, t.what
        folder = path.parent
        if not folder.exists():
            raise InputError([Problem(str(path), what, f"folder {str(folder)!r} does not exist")])
        if not folder.is_dir():
            raise InputError([Problem(str(path), what, f"{str(folder)!r} is not a folder")])
        self._check_name(t)
        self._check_not_a_link(t)
        try:
            st = os.stat(path)
        except FileNotFoundError:
            st = None
        except OSError as exc:
            raise InputError([Problem(str(path), what, f"cannot use this path: {exc.strerror}")]) from None
        if st is not None:
            if stat.S_ISDIR(st.st_mode):
                raise InputError([Problem(str(path), what, "is a folder; give a file name")])
            if not stat.S_ISREG(st.st_mode):
                raise InputError(
                    [Problem(str(path), what, f"is {file_kind(st.st_mode)}; refusing to replace it with a file")]
                )
            if not self.overwrite:
                raise InputError(
                    [Problem(str(path), what, "the file exists; give another name, or --force to replace it")]
                )
        if not os.access(folder, os.W_OK | os.X_OK) or (st is not None and not os.access(path, os.W_OK)):
            raise InputError([Problem(str(path), what, "no permission to write here")])
        self._check_duplicate(t)

    @staticmethod
    def _check_not_a_link(t: Target) -> None:
        """An output that is a symbolic link is refused, dangling or not: writing through it would put
        the file somewhere the command line does not name (and replacing it would drop the link)."""
        try:
            st = os.lstat(t.path)
        except OSError:
            return
        if not stat.S_ISLNK(st.st_mode):
            return
        try:
            target = os.readlink(t.path)
        except OSError:
            target = "?"
        where = f"to {echo(target)}" + ("" if os.path.exists(t.path) else ", which does not exist")
        raise InputError(
            [
                Problem(
                    str(t.path),
                    t.what,
                    f"is a symbolic link ({where}); procure does not write through links: "
                    "give the path of the file itself, or remove the link",
                )
            ]
        )

    def _check_name(self, t: Target) -> None:
        name_bytes = len(os.fsencode(t.path.name))
        folder = t.path.parent if t.path.parent.exists() else t.path.parent.parent
        limit = _name_max(folder)
        if name_bytes > limit:
            raise InputError(
                [
                    Problem(
                        str(t.path)[:120] + ("…" if len(str(t.path)) > 120 else ""),
                        t.what,
                        f"the file name is {name_bytes} bytes long; this file system allows {limit}",
                    )
                ]
            )

    def _check_duplicate(self, t: Target) -> None:
        for other in self.targets:
            if _same_path(other.path, t.path):
                raise InputError(
                    [Problem(str(t.path), t.what, f"is also the output of {other.what}; give each output its own file")]
                )

    def forbid_inputs(self, inputs: Iterable[str | Path]) -> None:
        """Refuse any output that is (or links to) one of the input files."""
        paths = [Path(p) for p in inputs]
        problems = []
        for t in self.targets:
            for src in paths:
                if _same_path(t.path, src):
                    problems.append(
                        Problem(str(t.path), t.what, f"is the input file {str(src)!r}; writing there would destroy it")
                    )
                    break
        if problems:
            raise InputError(problems)

    # -- writing ---------------------------------------------------------------------------------

    def put(self, target: Target, data: bytes) -> None:
        """Give a declared output its contents (written by :meth:`commit`)."""
        target.data = data

    def commit(self) -> list[Path]:
        """Write every output that has contents: all of them, or none. Returns the paths written."""
        todo = [t for t in self.targets if t.data is not None]
        if not todo:
            return []
        # a signal meanwhile rolls the transaction back; a library caller (no guarded run) then ends by the
        # signal, as it would have without us
        with runtime.signals_guarded(on_interrupt="no output was written"):
            return _transaction(todo)


def _same_path(a: Path, b: Path) -> bool:
    try:
        if a.exists() and b.exists():
            return os.path.samefile(a, b)
    except OSError:
        pass
    return os.path.realpath(a) == os.path.realpath(b)


def _sweep_stale(folder: Path) -> None:
    """Remove temporaries left by earlier runs that were killed outright (their process is gone)."""
    try:
        names = os.listdir(folder)
    except OSError:
        return
    for name in names:
        m = _TMP.match(name)
        if not m or not runtime.owner_gone(int(m.group(1))):
            continue
        try:
            if stat.S_ISREG(os.lstat(folder / name).st_mode):
                os.unlink(folder / name)
        except OSError:
            pass


def _transaction(todo: list[Target]) -> list[Path]:
    """Stage every output beside its target, then rename them all over their targets; on any failure
    (or a signal) undo what was renamed and remove what was staged. Returns the paths written."""
    tx = _Transaction(todo)
    try:
        tx.make_folders()
        for folder in {t.path.parent for t in todo}:
            _sweep_stale(folder)
        tx.stage()
        tx.back_up()
        tx.rename()
    except (OSError, runtime.Interrupted) as exc:
        kept = tx.undo()
        if isinstance(exc, runtime.Interrupted):
            raise
        raise InputError([tx.problem(exc, kept)]) from None
    _remove(list(tx.backups.values()))
    return [t.path for t in todo]


class _Transaction:
    """What one output transaction has done so far, so that it can be undone at any moment."""

    def __init__(self, todo: list[Target]):
        self.todo = todo
        self.created_folders: list[Path] = []
        self.temps: dict[int, Path] = {}  # index in todo -> temporary
        self.backups: dict[int, Path] = {}  # index -> hard link to the file it replaces
        self.renamed: list[int] = []
        self.failure: tuple[Target, str] | None = None

    def make_folders(self) -> None:
        for t in self.todo:
            folder = t.path.parent
            if t.new_folder and not folder.exists():
                folder.mkdir()
                self.created_folders.append(folder)

    def stage(self) -> None:
        """Each output's contents into a new temporary beside its target."""
        for i, t in enumerate(self.todo):
            # named and recorded before it exists, so a signal at any moment finds it to remove
            self.temps[i] = _temp_name(t.path.parent)
            try:
                _write_temp(t, self.temps[i])
            except OSError as exc:
                self.failure = (t, exc.strerror or str(exc))
                raise

    def back_up(self) -> None:
        """A hard link to each file about to be replaced, for the rollback; a target that is no longer a
        regular file (changed since it was checked) fails the transaction."""
        for i, t in enumerate(self.todo):
            try:
                st = os.lstat(t.path)
            except FileNotFoundError:
                continue
            if not stat.S_ISREG(st.st_mode):
                self.failure = (t, f"it is now {file_kind(st.st_mode)}")
                raise OSError(errno.EEXIST, self.failure[1])
            backup = _temp_name(t.path.parent)
            try:
                os.link(t.path, backup)
                self.backups[i] = backup
            except OSError:
                pass  # no hard links here: the replace is still atomic, only the rollback is lost

    def rename(self) -> None:
        for i, t in enumerate(self.todo):
            try:
                os.replace(self.temps[i], t.path)
            except OSError as exc:
                self.failure = (t, exc.strerror or str(exc))
                raise
            self.renamed.append(i)
            del self.temps[i]

    def undo(self) -> list[int]:
        """Roll back the renames, remove temporaries, backups and new folders; returns the indexes that
        could not be rolled back (still written)."""
        kept = _roll_back(self.todo, self.renamed, self.backups)
        _remove(list(self.temps.values()) + list(self.backups.values()))
        for folder in self.created_folders:
            try:
                folder.rmdir()
            except OSError:
                pass
        return kept

    def problem(self, exc: OSError, kept: list[int]) -> Problem:
        """The failure as the user reads it: what failed, and what was and was not written."""
        failed, why = self.failure if self.failure else (self.todo[0], exc.strerror or str(exc))
        written = [self.todo[i].path for i in kept]
        not_written = [t.path for i, t in enumerate(self.todo) if i not in kept]
        msg = f"could not write the file ({why})"
        if written:
            msg += f"; written: {', '.join(map(str, written))}; not written: {', '.join(map(str, not_written))}"
        else:
            msg += f"; nothing was written and any previous file is unchanged (not written: {', '.join(map(str, not_written))})"
        return Problem(str(failed.path), failed.what, msg)


def _temp_name(folder: Path) -> Path:
    return folder / f".procure-{os.getpid()}-{secrets.token_hex(4)}.tmp"


def _write_temp(t: Target, tmp: Path) -> None:
    """Write ``t.data`` into the new file ``tmp``, flushed to disk, with the target's final mode."""
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0), 0o600)
    with os.fdopen(fd, "wb") as fh:
        fh.write(t.data or b"")
        fh.flush()
        os.fsync(fh.fileno())
        # keep the mode of the file it replaces, else the mode a plain new file would get
        try:
            mode = os.stat(t.path).st_mode & 0o777
        except OSError:
            mode = _new_file_mode()
        os.fchmod(fh.fileno(), mode)


def _roll_back(todo: list[Target], renamed: list[int], backups: dict[int, Path]) -> list[int]:
    """Undo the renames that happened; returns the indexes that could not be undone (still written)."""
    kept = []
    for i in renamed:
        try:
            if i in backups:
                os.replace(backups.pop(i), todo[i].path)
            else:
                os.unlink(todo[i].path)
        except OSError:
            kept.append(i)
    return kept


def _remove(paths: Iterable[Path]) -> None:
    for p in paths:
        try:
            os.unlink(p)
        except OSError:
            pass


# --- one-file helpers (the template, library callers) ------------------------------------------------


def check_writable(path: str | Path, what: str = "output") -> Path:
    """Fail early — before any work — when ``path`` cannot be written."""
    Outputs().add(path, what)
    return Path(path)


def atomic_write(path: str | Path, data: bytes, what: str = "output", overwrite: bool = True) -> None:
    """Write ``data`` to ``path`` completely or not at all (an Outputs transaction of one file)."""
    out = Outputs(overwrite=overwrite)
    out.put(out.add(path, what), data)
    out.commit()
