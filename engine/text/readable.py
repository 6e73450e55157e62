"""Numbers as people read them: a duration as m:ss or h:mm:ss, a token count as "38.2 M" (the training
progress lines, the corpus reader's ETA, the Train tab's tables)."""

from __future__ import annotations


def format_duration(seconds: float | None) -> str:
    """m:ss, or h:mm:ss from an hour on; "–" when unknown."""
    if seconds is None or seconds != seconds:
        return "–"
    total = int(round(max(seconds, 0.0)))
    hours, rest = divmod(total, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"


def format_tokens(count: int) -> str:
    """A token count as people read it: "38.2 M", "950 k", "740"; a huge one in billions ("2.5 G",
    "1,000,000.0 G"), never a run of digits wider than the line."""
    if count >= 1_000_000_000:
        return f"{count / 1e9:,.1f} G"
    if count >= 1_000_000:
        return f"{count / 1e6:.1f} M"
    return f"{count / 1e3:.0f} k" if count >= 1_000 else str(count)
