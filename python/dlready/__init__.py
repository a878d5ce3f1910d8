"""dlready: is this machine ready to run PyTorch on its GPUs, and if not, why and how to fix it.

The wheel carries one native executable, installed where pip puts scripts (so `dlready` is on PATH
and no Python starts per call). This package only finds it: `python -m dlready ...` and
`dlready.find_dlready_bin()`.
"""
from ._find_dlready import find_dlready_bin

__all__ = ["find_dlready_bin"]
