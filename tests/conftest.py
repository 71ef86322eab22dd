"""pytest fixtures. Shared builders live in helpers.py."""

from __future__ import annotations

import pytest


@pytest.fixture
def tmp_cwd(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    return tmp_path
