"""The one driver: a user function becomes compiled code, stage by stage.

    parse → lower ─(lowering.py, once per function)─▶ Lowered
          → inline → shapes → transform → codegen → optimize → render → load
            ─(compile.py, once per argument signature)─▶ Variant

The transform is reverse (gradients, value and gradient, callee pullbacks) or forward
(jvp, driver/forward.py).  Every public function (api/) and tool comes through here; all
mutable state lives in `CACHE` (cache.py).
"""

from .cache import CACHE, Cache, CacheInfo, Callee, Lowered, Options, Variant
from .compile import callee, callee_sources, compile_variant, fast_function, full_source, variant
from .lowering import describe, inlined, is_current, lowered, refuse_shared_draws

__all__ = ["CACHE", "Cache", "CacheInfo", "Callee", "Lowered", "Options", "Variant", "callee", "callee_sources",
           "compile_variant", "describe", "fast_function", "full_source", "inlined", "is_current", "lowered",
           "refuse_shared_draws", "variant"]
