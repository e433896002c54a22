from typing import Any, Callable, Iterable, Mapping, Sequence

import pandas

from memsim import Record, Size

DEFAULT_NAMES: dict[str, str]
Restriction = Callable[..., bool]

class Predictions:
    tune_params: dict[str, Sequence[Any]]
    kernel: str
    names: dict[str, str]
    roles: list[str]
    time_us: dict[tuple[Any, ...], float]
    refused: dict[tuple[Any, ...], str]
    rows: dict[tuple[Any, ...], Record]
    document: Record
    device: Record
    matrix: tuple[int, int]
    def __init__(
        self,
        tune_params: Mapping[str, Sequence[Any]],
        kernel: str = "padded",
        matrix: Size | None = None,
        dtype: str | None = None,
        device: str | None = None,
        block: Size | None = None,
        tile: Size | None = None,
        pad: int | None = None,
        names: Mapping[str, str | None] | None = None,
        only: Iterable[Mapping[str, Any]] | None = None,
        **more: object,
    ) -> None: ...
    def key(self, params: Mapping[str, Any]) -> tuple[Any, ...]: ...
    def best(self) -> dict[str, Any]: ...
    def best_time_us(self) -> float: ...
    def restriction(self, keep_within: float | None = None) -> Restriction: ...
    def metrics(self, prefix: str = "memsim_") -> dict[str, Callable[[Mapping[str, Any]], float]]: ...

def restrictions(
    tune_params: Mapping[str, Sequence[Any]], kernel: str = "padded", keep_within: float | None = None, **memsim_args: Any
) -> Restriction: ...
def write_cache(
    path: str,
    tune_params: Mapping[str, Sequence[Any]],
    kernel: str = "padded",
    kernel_name: str | None = None,
    problem_size: Sequence[int] | None = None,
    objective: str = "time",
    **memsim_args: Any,
) -> Predictions: ...
def write_t4(
    path: str, tune_params: Mapping[str, Sequence[Any]], kernel: str = "padded", objective: str = "time",
    **memsim_args: Any
) -> Predictions: ...
def read_cache(path: str) -> dict[str, Any]: ...
def compare_cache(
    path: str, kernel: str = "padded", names: Mapping[str, str | None] | None = None, as_frame: bool = False,
    **memsim_args: Any
) -> list[Record] | pandas.DataFrame: ...
