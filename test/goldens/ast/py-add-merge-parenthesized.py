"""Module docstring."""
from __future__ import annotations

import os
from typing import (
    Any,
    Optional,
    Dict,
)
from .store import Store


def f(x: Any) -> Optional[Store]:
    return os.getenv(x)
