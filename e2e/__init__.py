"""Checks against real outside programs, too slow for `make test` (`make e2e-model`)."""
