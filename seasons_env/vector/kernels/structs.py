"""The array state's fields as one numba StructRef: passing it to a kernel costs one reference count, not one per
array (a named tuple of 40 arrays costs 40 atomic increments and decrements at every call that numba cannot
prune). When the kernels run as plain Python (``SEASONS_KERNELS=python``) the struct is a plain object holding the
same arrays as attributes.

The struct is made by a cached kernel (``_new_kernel_arrays``) rather than by numba's own constructor of the proxy
class (``KernelArrays(*fields)``), which numba compiles again in every process, cache or not (about 3 seconds on
the development machine, every time a process first steps a batch).
"""

from __future__ import annotations

import numba
import numpy as np
from numba.core import types
from numba.experimental import structref

from ..state.arrays import FIELD_NAMES, ArrayState
from . import PYTHON_KERNELS, kernel


class _PythonKernelArrays:
    """The struct when the kernels run as plain Python (``SEASONS_KERNELS=python``): the same fields as attributes."""

    __slots__ = FIELD_NAMES

    def __init__(self, *fields: np.ndarray) -> None:
        for name, value in zip(FIELD_NAMES, fields, strict=True):
            setattr(self, name, value)


if PYTHON_KERNELS:
    KernelArrays = _PythonKernelArrays

    def _new_kernel_arrays(fields: tuple[np.ndarray, ...]) -> _PythonKernelArrays:
        return _PythonKernelArrays(*fields)

else:

    @structref.register
    class KernelArraysType(types.StructRef):
        def preprocess_fields(self, fields):
            return tuple((name, types.unliteral(typ)) for name, typ in fields)

    class KernelArrays(structref.StructRefProxy):
        pass

    structref.define_proxy(KernelArrays, KernelArraysType, list(FIELD_NAMES))

    def _field_property(name: str) -> property:
        """Python access to one field (``arrays.reserve``): the same array the kernels write."""
        namespace: dict = {}
        exec(f"def read(self):\n    return self.{name}\n", namespace)  # a getter per fixed field name of LAYOUT
        return property(numba.njit(namespace["read"]))

    for _name in FIELD_NAMES:
        setattr(KernelArrays, _name, _field_property(_name))

    @kernel
    def _new_kernel_arrays(fields):
        return KernelArrays(*fields)


def kernel_arrays(state: ArrayState) -> KernelArrays:
    """The fields of ``state`` (the same arrays, not copies) as the kernels' struct."""
    return _new_kernel_arrays(tuple(getattr(state, name) for name in FIELD_NAMES))


def kernel_arrays_type(state: ArrayState) -> types.Type:
    """The numba type of ``kernel_arrays(state)``, without making the struct (which, from an empty cache, compiles
    ``_new_kernel_arrays`` first: what the background compiler's start waited for). Compiled kernels only."""
    if PYTHON_KERNELS:
        raise RuntimeError("the kernels run as Python (SEASONS_KERNELS=python): their struct has no numba type")
    return KernelArraysType([(name, numba.typeof(getattr(state, name))) for name in FIELD_NAMES])
