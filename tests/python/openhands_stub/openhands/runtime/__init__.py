"""TEST STAND-IN, NOT OPENHANDS: a test-only imitation of OpenHands 0.62's `openhands.runtime`:
get_runtime_cls, which resolves config.toml's `[core] runtime` (a dotted "module.Class" path when it is
not one of OpenHands' own names) to a subclass of Runtime."""

import importlib

from openhands.runtime.base import Runtime


def get_runtime_cls(name):
    try:
        module_name, _, class_name = name.rpartition('.')
        cls = getattr(importlib.import_module(module_name), class_name)
        if not (isinstance(cls, type) and issubclass(cls, Runtime)):
            raise TypeError(f'{name} is not a Runtime')
        return cls
    except Exception as e:
        raise ValueError(f'Runtime {name} not supported, known are: (the stand-in knows none)') from e
