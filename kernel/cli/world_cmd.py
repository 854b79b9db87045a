"""`village` commands; see kernel/cli/__init__.py."""

COMMANDS: tuple = ()
