"""The console's name as its events carry it. It has no settings of its own; this is
what the process reads of it before (and without) building the terminal's adapter."""

PLATFORM = "console"  # the `platform` of the terminal's events
