"""procure: plan how to get the compute for LLM training — buy, rent or cloud — at the lowest TCO."""


def _source_tree_packages() -> None:
    """In a clone's root, ``import procure`` finds this folder before any installed copy, but the subpackages
    (procure.common, procure.solver, …) live beside it (pyproject's package-dir): look for them there too.
    Only for a source tree (a pyproject.toml and common/ beside this folder); an installed copy is untouched."""
    import os

    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    if os.path.isfile(os.path.join(root, "pyproject.toml")) and os.path.isdir(os.path.join(root, "common")):
        if root not in __path__:
            __path__.append(root)


_source_tree_packages()


def __getattr__(name: str):
    """``procure.solve`` and ``procure.size`` are ``procure.api``'s, with their typed keyword parameters and
    docs; imported when first used, so ``import procure`` stays light."""
    if name == "__version__":  # read when asked: importlib.metadata is slow to import, and the command's
        # signal handler (procure.entry) must be in place as early as possible
        from importlib.metadata import PackageNotFoundError, version

        try:
            return version("procure")
        except PackageNotFoundError:  # running from a source tree without installing
            return "0.0.0+source"
    if name in ("solve", "size", "Result"):
        from procure import api

        return getattr(api, name)
    raise AttributeError(f"module 'procure' has no attribute {name!r}")
