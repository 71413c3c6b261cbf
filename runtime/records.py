"""Slotted record classes that behave like `@dataclass(slots=True)` ones, without `dataclasses`.

`import dataclasses` (it imports `inspect`, `ast`, `dis`, ...) and the code every `@dataclass`
decorator compiles and executes (twice with `slots=True`: the class is built again) cost more
than the rest of `import wiremap` (issue #6, cold import). The canonical records and the wire-rule
records therefore write by hand what the decorator would have generated, `__init__` and
`__eq__` (equal when the other object is of the very same class and the field tuples are equal;
so `__hash__` is None: records are mutable and unhashable), and inherit the rest from `Record`:

- `__slots__` and `__match_args__` (its field names, in `__init__` order: checked here);
- `__repr__`: `Name(field=value!r, ...)`, `...` for a record met again while being printed;
- `FrozenRecord` adds what `frozen=True` adds: `__setattr__` / `__delattr__` raising
  `dataclasses.FrozenInstanceError`, `__hash__` of the field tuple, and pickling through
  `__getstate__` / `__setstate__`;
- `dataclasses.fields`, `replace`, `asdict`, `astuple` and `is_dataclass` keep working: the class
  attributes `__dataclass_fields__` / `__dataclass_params__` are built on first access (importing
  `dataclasses` then) by applying `@dataclass` to a throwaway class with the same annotations and
  `__init__` defaults, so they hold the same `Field` objects the decorator would have made.

A default written as `DICT` / `LIST` is a fresh `{}` / `[]` per instance
(`field(default_factory=dict)`); `__init__` makes it.
"""

from __future__ import annotations

from _thread import get_ident
from operator import attrgetter
from typing import TYPE_CHECKING, Any, Callable, ClassVar, TypeVar

if TYPE_CHECKING:  # what type checkers see of the attributes built on first access
    from dataclasses import Field

__all__ = ["Record", "FrozenRecord", "Factory", "DICT", "LIST", "replace"]


class Factory:
    """A default meaning "a fresh `make()` per instance" (`field(default_factory=make)`)."""

    __slots__ = ("make",)

    def __init__(self, make: Callable[[], Any]) -> None:
        self.make = make

    def __repr__(self) -> str:
        return "<factory>"  # as dataclasses shows a default factory in a signature


# Typed as Any so that `raw: dict[str, Any] = DICT` type-checks as a default.
DICT: Any = Factory(dict)
LIST: Any = Factory(list)

_repr_running: set[tuple[int, int]] = set()


class _DataclassInfo:
    """`__dataclass_fields__` / `__dataclass_params__`, computed on first access and then stored
    on the record class itself (replacing this descriptor there)."""

    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name

    def __get__(self, obj: object, owner: type) -> Any:
        cls = next((c for c in owner.__mro__ if "__match_args__" in c.__dict__ and c is not Record), None)
        if cls is None:  # `Record` itself is not a dataclass
            raise AttributeError(self.name)
        import dataclasses

        init = cls.__init__  # type: ignore[misc]
        names: tuple[str, ...] = cls.__match_args__  # type: ignore[attr-defined]
        defaults = init.__defaults__ or ()
        annotations = cls.__dict__.get("__annotations__", {})
        namespace: dict[str, Any] = {
            "__annotations__": {name: annotations[name] for name in names},
            "__module__": cls.__module__,
            "__qualname__": cls.__qualname__,
        }
        for name, default in zip(names[len(names) - len(defaults):], defaults):
            if isinstance(default, Factory):
                namespace[name] = dataclasses.field(default_factory=default.make)
            else:
                namespace[name] = default
        frozen = issubclass(cls, FrozenRecord)
        shadow: Any = dataclasses.dataclass(frozen=frozen)(type(cls.__name__, (), namespace))
        type.__setattr__(cls, "__dataclass_fields__", shadow.__dataclass_fields__)
        type.__setattr__(cls, "__dataclass_params__", shadow.__dataclass_params__)
        return getattr(cls, self.name)


class Record:
    """Base of the hand-written records; each subclass declares `__slots__`, `__match_args__`
    (the same names, in `__init__` order), `__init__` and `__eq__`."""

    __slots__ = ()
    __match_args__: ClassVar[tuple[str, ...]] = ()
    _values: ClassVar[Callable[..., tuple[Any, ...]]]  # record -> its field values

    if TYPE_CHECKING:
        __dataclass_fields__: ClassVar[dict[str, Field[Any]]]
    else:
        __dataclass_fields__ = _DataclassInfo("__dataclass_fields__")
        __dataclass_params__ = _DataclassInfo("__dataclass_params__")

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        names = cls.__dict__.get("__match_args__")
        if names is None:
            return
        if tuple(names) != tuple(cls.__dict__.get("__slots__", ())):
            raise TypeError(f"{cls.__name__}: __match_args__ must list the __slots__, in order")
        if "__eq__" not in cls.__dict__:
            raise TypeError(f"{cls.__name__}: a record writes its own __eq__ (as @dataclass would)")
        if issubclass(cls, FrozenRecord):  # defining __eq__ set __hash__ to None in the class
            cls.__hash__ = FrozenRecord.__hash__  # type: ignore[method-assign]
        if len(names) == 1:  # attrgetter of one name returns the value, not a 1-tuple
            get = attrgetter(names[0])
            cls._values = staticmethod(lambda record: (get(record),))
        else:
            cls._values = attrgetter(*names)  # a tuple of the field values

    def __repr__(self) -> str:
        key = (id(self), get_ident())
        if key in _repr_running:
            return "..."
        _repr_running.add(key)
        try:
            fields = ", ".join(f"{name}={getattr(self, name)!r}" for name in self.__match_args__)
            return f"{self.__class__.__qualname__}({fields})"
        finally:
            _repr_running.discard(key)


class FrozenRecord(Record):
    """A record whose fields cannot be assigned after `__init__` (which sets them with
    `object.__setattr__`); hashable by its field values."""

    __slots__ = ()

    def __setattr__(self, name: str, value: Any) -> None:
        if "__match_args__" in type(self).__dict__ or name in self.__match_args__:
            from dataclasses import FrozenInstanceError

            raise FrozenInstanceError(f"cannot assign to field {name!r}")
        super().__setattr__(name, value)

    def __delattr__(self, name: str) -> None:
        if "__match_args__" in type(self).__dict__ or name in self.__match_args__:
            from dataclasses import FrozenInstanceError

            raise FrozenInstanceError(f"cannot delete field {name!r}")
        super().__delattr__(name)

    def __hash__(self) -> int:
        return hash(self._values(self))

    def __getstate__(self) -> list[Any]:
        return [getattr(self, name) for name in self.__match_args__]

    def __setstate__(self, state: list[Any]) -> None:
        for name, value in zip(self.__match_args__, state):
            object.__setattr__(self, name, value)


_R = TypeVar("_R", bound=Record)  # (a string bound would compile a ForwardRef: ~1.5 ms cold)


def replace(record: _R, /, **changes: Any) -> _R:
    """`dataclasses.replace` for a record: a new one with `changes` applied, the same class."""
    for name in record.__match_args__:
        if name not in changes:
            changes[name] = getattr(record, name)
    return record.__class__(**changes)
