"""A progress bar for the long commands (import, eval): one line redrawn in place on a
terminal; on a log or a pipe, where a redraw leaves carriage returns in the file, a
plain line at each tenth of the way."""

from __future__ import annotations

from typing import TextIO


class ProgressBar:
    def __init__(self, total: int, stream: TextIO, width: int = 30):
        self.total, self.stream, self.width = total, stream, width
        self.tty = getattr(stream, "isatty", lambda: False)()
        self._pending = False  # a frame drawn on a terminal line not yet ended

    def show(self, done: int, text: str) -> None:
        """The bar at ``done`` of the total, ``text`` after it."""
        tenth = max(self.total // 10, 1)
        if not self.tty and done % tenth and done < self.total:
            return
        filled = self.width * min(done, self.total) // max(self.total, 1)
        line = f"[{'#' * filled}{'-' * (self.width - filled)}] {text}"
        if self.tty:
            self.stream.write(f"\r{line}")
            self._pending = done < self.total
            if not self._pending:
                self.stream.write("\n")
        else:
            self.stream.write(f"{line}\n")
        self.stream.flush()

    def end_line(self) -> None:
        """End a terminal line a frame is on (before an error, or when stopping early)."""
        if self._pending:
            self.stream.write("\n")
            self.stream.flush()
            self._pending = False
