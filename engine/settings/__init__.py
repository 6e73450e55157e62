"""Typed, frozen settings, each described once, and the engine's errors."""
