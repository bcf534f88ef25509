"""Module docstring."""
from __future__ import annotations

from typing import (
    Any,
    Optional,
)
from .store import Store


def f(x: Any) -> Optional[Store]:
    return os.getenv(x)
