"""Stored files: the typed schema, the one reader and opener, atomic writes."""
