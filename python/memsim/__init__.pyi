import os
from typing import Any, Literal, Mapping, Sequence, Union, overload

import pandas

Size = Union[tuple[int, int], str]  # (X, Y) or "XxY"
Sizes = Union[Size, Sequence[tuple[int, int]]]  # one, a list, or "32x8,16x16" / "all" (block)
Names = Union[str, Sequence[str]]
Record = dict[str, Any]

class Error(ValueError):
    """memsim's one-line message for what the command line refuses with exit status 2."""

__version__: str

def run(*args: object) -> Any: ...
def predict(
    kernel: str = "padded",
    block: Size | None = None,
    matrix: Size | None = None,
    dtype: str | None = None,
    device: str | None = None,
    tile: Size | None = None,
    pad: int | None = None,
    **more: object,
) -> Record: ...
def kernel_file(
    path: str | os.PathLike[str],
    defines: Mapping[str, object] | Sequence[str] | None = None,
    block: Size | None = None,
    matrix: Size | None = None,
    dtype: str | None = None,
    device: str | None = None,
    tile: Size | None = None,
    pad: int | None = None,
    **more: object,
) -> Record: ...
# sweep's three overloads differ only in what as_frame and refused make it return.
@overload
def sweep(
    kernel: Names = "padded",
    block: Sizes | None = None,
    matrix: Sizes | None = None,
    dtype: Names | None = None,
    device: str | None = None,
    tile: Sizes | None = None,
    pad: int | None = None,
    as_frame: Literal[False] = False,
    refused: Literal[False] = False,
    **more: object,
) -> list[Record]: ...
@overload
def sweep(
    kernel: Names = "padded",
    block: Sizes | None = None,
    matrix: Sizes | None = None,
    dtype: Names | None = None,
    device: str | None = None,
    tile: Sizes | None = None,
    pad: int | None = None,
    *,
    as_frame: Literal[True],
    refused: Literal[False] = False,
    **more: object,
) -> pandas.DataFrame: ...
@overload
def sweep(
    kernel: Names = "padded",
    block: Sizes | None = None,
    matrix: Sizes | None = None,
    dtype: Names | None = None,
    device: str | None = None,
    tile: Sizes | None = None,
    pad: int | None = None,
    as_frame: bool = False,
    *,
    refused: Literal[True],
    **more: object,
) -> Record: ...
def to_frame(records: Sequence[Record]) -> pandas.DataFrame: ...
def kernels() -> list[Record]: ...
def devices() -> list[Record]: ...
