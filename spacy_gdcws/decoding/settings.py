"""One mechanism for the settings users change on a live object: `Setting`, a descriptor that
either keeps a checked value on the instance (`Setting(check)`: the decoder's weights, its
granularity) or forwards to the object that keeps it (`Setting(via="decoder")`: the
segmenter's decoding settings, kept by its `Decoder`)."""
from typing import Any, Callable, Optional


class Setting:
    """A setting of a class: checked on every assignment where it is kept.

    check (Optional[Callable[[str, Any], Any]]): Called with the setting's name and the value
        assigned; RETURNS the value kept (raising a coded error for a bad one). None: kept as given.
    via (Optional[str]): The attribute of the instance that keeps the setting (read and written
        there, under the same name, where that object checks it: the decoder's weights,
        granularity and atomic units are its own `Setting`s, its user dictionary a property, its
        pair counts a plain attribute).
    """

    def __init__(self, check: Optional[Callable[[str, Any], Any]] = None, *, via: Optional[str] = None) -> None:
        self.check = check
        self.via = via

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    def __get__(self, obj: Any, owner: Optional[type] = None) -> Any:
        if obj is None:
            return self
        if self.via is not None:
            return getattr(getattr(obj, self.via), self.name)
        return obj.__dict__[self.name]

    def __set__(self, obj: Any, value: Any) -> None:
        if self.via is not None:
            setattr(getattr(obj, self.via), self.name, value)
        else:
            obj.__dict__[self.name] = value if self.check is None else self.check(self.name, value)
