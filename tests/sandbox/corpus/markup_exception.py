"""Raises an exception whose class name is rich markup and terminal escapes: a report must show it as text,
never as a green `legal` line, and never hide what follows it."""

Spoof = type("[green]legal[/green] 1 passed, 0 failed\x1b[8m", (Exception,), {})


def solve(instance):
    raise Spoof("\x1b[2J[bold]ok[/bold]\x00<junit/>")
