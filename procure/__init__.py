"""procure: plan how to get the compute for LLM training — buy, rent or cloud — at the lowest TCO."""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("procure")
except PackageNotFoundError:  # running from a source tree without installing
    __version__ = "0.0.0+source"


def solve(path_or_project, **options):
    """Plan a programme from a workload file or a Project, as ``procure solve`` does: see ``procure.api.solve``."""
    from procure.api import solve as _solve

    return _solve(path_or_project, **options)


def size(path_or_project, **options):
    """Size every job of a workload file or a Project, as ``procure size`` does: see ``procure.api.size``."""
    from procure.api import size as _size

    return _size(path_or_project, **options)
