"""procure: plan how to get the compute for LLM training — buy, rent or cloud — at the lowest TCO."""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("procure")
except PackageNotFoundError:  # running from a source tree without installing
    __version__ = "0.0.0+source"
