"""The last line of defence of every command: no traceback ever reaches a user.

Commands catch the errors they expect and say what to fix. What still escapes ends here as
one line: Ctrl-C (every long command resumes, so the user is told to run it again),
guigraph's own typed errors, whose messages already name the file and the field, and the
operating system's (a full disk, a folder that cannot be written), which name the file.
"""

from __future__ import annotations

from typing import Any

import typer
from typer.core import TyperGroup

from guigraph.errors import GuigraphError

#: What a shell reports for a process ended by SIGINT (128 + 2).
INTERRUPTED_EXIT = 130


class GuardedGroup(TyperGroup):
    """The root command group; it wraps every subcommand's invocation."""

    def invoke(self, ctx: Any) -> Any:
        try:
            return super().invoke(ctx)
        except (KeyboardInterrupt, typer.Abort):
            typer.echo("\ninterrupted; run again to resume", err=True)
            raise typer.Exit(INTERRUPTED_EXIT) from None
        except GuigraphError as exc:
            typer.echo(f"error: {exc}", err=True)
            raise typer.Exit(2) from None
        except OSError as exc:  # a disk full, a folder not writable: the OS names the file
            typer.echo(f"error: {exc}", err=True)
            raise typer.Exit(2) from None
