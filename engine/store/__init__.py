"""The review store: one SQLite file holding every card's schedule and the full review log."""

from engine.store.db import open_store
from engine.store.reviews import ReviewRecord, Store

__all__ = ["ReviewRecord", "Store", "open_store"]
