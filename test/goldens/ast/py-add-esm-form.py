"""Module docstring."""
from __future__ import annotations

import os
from typing import (
    Any,
    Optional,
)
from .store import Store, Engine


def f(x: Any) -> Optional[Store]:
    return os.getenv(x)
