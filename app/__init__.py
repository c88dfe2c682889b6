"""Entry points that compose the process: the CLI and its commands, `serve` (the
long-running bot with its HTTP server and probes), the `runtime` that builds the
engine from settings (its collaborators: `engine_parts`), and recovery of events a
crash left unfinished.

The engine's own modules (one level up) import nothing from here, nor any adapter or
the scheduler: this is the only place that knows all of them."""
