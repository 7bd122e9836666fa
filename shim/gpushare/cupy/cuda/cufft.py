"""``cupy.cuda.cufft``: cuFFT plans live on the server; no plan is ever current here."""
from __future__ import annotations

from typing import Any


def get_current_plan() -> None:
    return None


class Plan1d:
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        raise NotImplementedError("gpushare: explicit cuFFT plans are not supported")


class PlanNd(Plan1d):
    pass
