"""The package version: `wiremap.__version__`, and the Provider's `user-agent` and span attributes.

A leaf module, so the runtime reads the version without importing the `wiremap` package that
imports it. Keep it equal to `version` in pyproject.toml.
"""

from __future__ import annotations

__all__ = ["__version__"]

__version__ = "0.1.0"
