"""Stored files: the typed schema, the one opener, atomic writes, locks."""
