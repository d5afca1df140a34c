"""Names a package imports on first use (PEP 562), so that importing it stays cheap: the
package's ``__getattr__`` asks a :class:`LazyNames` for a name it does not hold yet."""

from __future__ import annotations

import importlib
from collections.abc import Mapping, MutableMapping
from typing import Any


class LazyNames:
    """The names of ``package`` that are imported on first use: each name's submodule
    (relative to the package) and the attribute there it is (None: the submodule itself).
    A name once imported goes into the package's ``namespace``, so later look-ups find it
    there and never come back here."""

    def __init__(
        self,
        package: str,
        namespace: MutableMapping[str, Any],
        names: Mapping[str, tuple[str, str | None]],
    ) -> None:
        self.package = package
        self.namespace = namespace
        self.names = names

    def __call__(self, name: str) -> Any:
        """The value of ``name``, imported now; AttributeError for a name the package has
        not."""
        if name not in self.names:
            raise AttributeError(f"module {self.package!r} has no attribute {name!r}")
        module, attribute = self.names[name]
        imported = importlib.import_module(f"{self.package}.{module}")
        value = imported if attribute is None else getattr(imported, attribute)
        self.namespace[name] = value
        return value
