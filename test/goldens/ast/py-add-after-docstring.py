import os
from .store import Store, connect as open_store
import re

LIMIT = 10


def cached(fn):
    """Caches fn."""
    def wrapper(*args):
        return fn(*args)
    return wrapper


class User:
    kind = "user"

    def __init__(self, name: str, store: Store):
        self.name = name
        self.store = store

    @cached
    def load(self, limit=LIMIT):
        rows = [row for row in self.store.rows() if row.name == self.name]
        return rows[:limit]

    def path(self):
        return os.path.join("/users", self.name)


def find(name):
    user = User(name, open_store())
    return user.load()
