"""Compiled-code set-up: the numba cache folder, keyed on hsim's own source.

numba's on-disk cache does not notice when an inlined callee in another file changes
(measured while building the engine), so a cache written by one version of hsim's
source must never be read by another. The cache lives in ``$HSIM_CACHE_DIR`` (default
``~/.cache/hsim``) under a folder named by a hash of every module of ``hsim`` and of
the built-in strategies whose text ends up in compiled code: the compiled modules and the
modules they import (:func:`source_hash`).
A ``NUMBA_CACHE_DIR`` already set by the user is respected.

Import this module before anything that defines ``@njit(cache=True)`` kernels.
"""

from __future__ import annotations

import copy
import hashlib
import importlib.abc
import importlib.machinery
import importlib.util
import os
import re
import sys
import threading
import types
import warnings
from pathlib import Path

PACKAGE_DIR = Path(__file__).resolve().parent.parent  # the hsim package


#: Text that marks a module as defining compiled code (decorators and calls, not mentions).
COMPILED_MARKERS = (b"@njit", b"njit(", b"@kernel", b"@intrinsic", b"@overload")
_IMPORT = re.compile(
    rb"^\s*(?:from\s+(hsim(?:\.\w+)*)\s+import\s+([\w, ()]+)|import\s+(hsim(?:\.\w+)*))", re.M
)


def strategies_folders() -> list[Path]:
    """Return the folders of the built-in strategies (``hsim.strategies``) outside the
    package folder: in an editable install the repository's ``strategies/``, mapped into
    the package; [] when they are inside it. Located without importing them."""
    if (PACKAGE_DIR / "strategies").exists():
        return []
    spec = importlib.util.find_spec("hsim.strategies")
    return [Path(f).resolve() for f in ((spec.submodule_search_locations or []) if spec else [])]


def _compiled_sources() -> list[tuple[str, Path]]:
    """Return (name, path) of every hsim and built-in strategy module, names relative to
    the package (``engine/game.py``, ``strategies/pimc.py``)."""
    files = [(str(p.relative_to(PACKAGE_DIR)), p) for p in PACKAGE_DIR.rglob("*.py")]
    for folder in strategies_folders():
        files += [("strategies/" + p.name, p) for p in folder.rglob("*.py")]
    return sorted(files)


def _imported(data: bytes, names: set[str]) -> set[str]:
    """Return the names (as in :func:`_compiled_sources`) of the hsim modules that the
    module text ``data`` imports, found by reading its import lines (nothing is imported).
    """
    found = set()
    for match in _IMPORT.finditer(data):
        dotted = (match.group(1) or match.group(3)).decode()
        parts = dotted.split(".")[1:]
        candidates = ["/".join(parts)]
        if match.group(2):  # from hsim.x import y: y may be a module too
            for name in re.split(rb"[\s,()]+", match.group(2)):
                if name:
                    candidates.append("/".join([*parts, name.decode()]))
        for candidate in candidates:
            for name in (f"{candidate}.py", f"{candidate}/__init__.py".lstrip("/")):
                if name in names:
                    found.add(name)
    return found


def _hashed(sources: dict[str, bytes]) -> list[str]:
    """Return the names of ``sources`` (name -> text) whose text ends up in compiled code."""
    todo = [
        name
        for name, data in sources.items()
        if name.startswith("engine/") or any(marker in data for marker in COMPILED_MARKERS)
    ]
    counted: set[str] = set()
    while todo:
        name = todo.pop()
        if name not in counted:
            counted.add(name)
            todo.extend(_imported(sources[name], set(sources)) - counted)
    return sorted(counted)


def hashed_modules() -> list[str]:
    """Return the module names :func:`source_hash` covers: every module of
    ``hsim.engine``, every module that defines compiled functions (``@njit``,
    ``@kernel``, ...), and every hsim module those import, followed to the end (their
    constants are compiled in: rules codes, card masks).
    """
    return _hashed({name: path.read_bytes() for name, path in _compiled_sources()})


def source_hash() -> str:
    """Return a short hash of the source of the modules of :func:`hashed_modules`.

    Editing any other module (the CLI, the runner, the analysis) keeps the cache.
    """
    sources = {name: path.read_bytes() for name, path in _compiled_sources()}
    h = hashlib.sha256()
    for name in _hashed(sources):
        h.update(name.encode())
        h.update(sources[name])
    return h.hexdigest()[:16]


def _configure() -> str:
    if os.environ.get("NUMBA_CACHE_DIR"):
        return os.environ["NUMBA_CACHE_DIR"]
    base = Path(os.environ.get("HSIM_CACHE_DIR", Path.home() / ".cache" / "hsim"))
    path = str(base / f"numba-{source_hash()}")
    os.environ["NUMBA_CACHE_DIR"] = path
    # deferred: numba reads NUMBA_CACHE_DIR when it loads, so it loads only after this
    import numba

    numba.config.CACHE_DIR = path  # numba may have been imported before us
    return path


CACHE_DIR = _configure()

import numba  # noqa: E402

warnings.filterwarnings("ignore", category=numba.NumbaExperimentalFeatureWarning)

JIT_DISABLED = bool(numba.config.DISABLE_JIT)


class _NoScipyLinalg(importlib.abc.MetaPathFinder):
    """An import finder that refuses ``scipy.linalg`` to the thread that made it (see
    :func:`_load_arraymath`); another thread's import of it goes on as usual."""

    def __init__(self) -> None:
        self.thread = threading.get_ident()

    def find_spec(self, name, path=None, target=None):
        if name == "scipy.linalg" and threading.get_ident() == self.thread:
            raise ModuleNotFoundError(f"{name} is not imported while numba loads", name=name)
        return None


def _exec_arraymath_without_blas_probe(exec_module, module) -> None:
    """Run ``numba.np.arraymath``'s import (``exec_module(module)``) with
    ``scipy.linalg`` refused, then set its BLAS flag as the probe would have (unless
    ``scipy.linalg`` is imported by then: the probe is then free)."""
    if "scipy.linalg" in sys.modules:
        exec_module(module)
        return
    finder = _NoScipyLinalg()
    sys.meta_path.insert(0, finder)
    try:
        exec_module(module)
    finally:
        sys.meta_path.remove(finder)
    module._HAVE_BLAS = _scipy_linalg_found()


def _scipy_linalg_found() -> bool:
    """Return whether ``scipy.linalg`` can be found (not imported; its package is)."""
    try:
        return importlib.util.find_spec("scipy.linalg") is not None
    except (ImportError, ValueError):
        return False


class _ImportThrough(importlib.abc.MetaPathFinder):
    """An import finder that runs one module's import through ``run(exec_module,
    module)`` instead of the module's own ``exec_module`` (see :func:`_load_arraymath`,
    :func:`_share_copies_when_inlining`); ``run`` must call ``exec_module(module)``.
    Acts once, on the module ``name``, and only when its loader has ``exec_module``."""

    def __init__(self, name: str, run) -> None:
        self.name = name
        self.run = run

    def find_spec(self, name, path=None, target=None):
        if name != self.name:
            return None
        if self in sys.meta_path:  # once (a caller may have replaced the list meanwhile)
            sys.meta_path.remove(self)
        spec = importlib.machinery.PathFinder.find_spec(name, path, target)
        loader = getattr(spec, "loader", None)
        if loader is None or not hasattr(loader, "exec_module"):
            return spec
        exec_module, run = loader.exec_module, self.run

        class Loader(importlib.abc.Loader):
            def create_module(self, spec):
                return loader.create_module(spec)

            def exec_module(self, module):
                run(exec_module, module)

            def __getattr__(self, name):  # get_source, get_filename, ...: the real loader's
                return getattr(loader, name)

        spec.loader = Loader()
        return spec


def _import_through(name: str, run) -> None:
    """Have module ``name`` imported through ``run`` (:class:`_ImportThrough`) when it
    is first imported; when it is already imported, ``run`` its import's end now (with
    an ``exec_module`` that does nothing)."""
    if name in sys.modules:
        run(lambda module: None, sys.modules[name])
    elif not any(isinstance(f, _ImportThrough) and f.name == name for f in sys.meta_path):
        sys.meta_path.insert(0, _ImportThrough(name, run))


def _load_arraymath() -> None:
    """Have ``numba.np.arraymath`` imported without its import-time BLAS probe.

    The module sets ``_HAVE_BLAS`` at import by importing ``scipy.linalg`` (about 0.16 s
    and 0.1 s more of numpy's testing and f2py modules, measured), once in every process
    that compiles: no hsim kernel uses BLAS. When numba imports the module (the first
    compile; loading hsim's code from the cache does not,
    :func:`_load_cached_code_without_refresh`) the probe is refused (to that thread
    only), and the flag is then set to what the probe would have found (``scipy.linalg``
    installed), so that compiled code behaves as before: the one reader of the flag
    (``np.correlate``/``np.convolve`` typing) picks the BLAS version, whose own
    ``ensure_blas`` imports scipy when that code is compiled. Nothing is done when the
    module or ``scipy.linalg`` is already imported.
    """
    if "numba.np.arraymath" in sys.modules or "scipy.linalg" in sys.modules or JIT_DISABLED:
        return
    _import_through("numba.np.arraymath", _exec_arraymath_without_blas_probe)


_load_arraymath()


class _InlineCopies(threading.local):
    """What :func:`_share_copies_when_inlining` keeps while numba inlines a function:
    one deepcopy memo per IR scope copied, for each ``inline_ir`` call in progress (a
    stack: an inline may start inside another). ``share`` turns the sharing off (a
    test compares the code compiled either way)."""

    def __init__(self) -> None:
        self.calls: list[dict[int, tuple[object, dict]]] = []
        self.share = True


_INLINE_COPIES = _InlineCopies()


class _CopyForInlining:
    """What ``numba.core.inline_closurecall`` sees as its ``copy`` module: the standard
    one, except that a block copied without a memo while a function is being inlined
    shares one memo with the other blocks of its scope in that same inline call."""

    def __init__(self, copy_module) -> None:
        self.copy_module = copy_module

    def __getattr__(self, name):
        return getattr(self.copy_module, name)

    def deepcopy(self, x, memo=None):
        calls = _INLINE_COPIES.calls
        scope = getattr(x, "scope", None)
        if memo is None and calls and _INLINE_COPIES.share and scope is not None:
            # the scope is kept with its memo: its id must not be reused while it keys one
            memo = calls[-1].setdefault(id(scope), (scope, {}))[1]
        return self.copy_module.deepcopy(x, memo)


def _share_inline_copies(exec_module, module) -> None:
    """Run ``numba.core.inline_closurecall``'s import (``exec_module(module)``), then
    make its block copies share one memo per inlined IR (:func:`_share_copies_when_inlining`).
    Leaves the module as numba wrote it when it no longer has the shape this expects."""
    exec_module(module)
    worker = getattr(module, "InlineWorker", None)
    inline_ir = getattr(worker, "inline_ir", None)
    if inline_ir is None or getattr(module, "copy", None) is not copy:
        return

    def shared_inline_ir(self, *args, **kwargs):
        _INLINE_COPIES.calls.append({})
        try:
            return inline_ir(self, *args, **kwargs)
        finally:
            _INLINE_COPIES.calls.pop()

    shared_inline_ir.__doc__ = inline_ir.__doc__
    shared_inline_ir.numba_inline_ir = inline_ir
    module.copy = _CopyForInlining(copy)
    worker.inline_ir = shared_inline_ir


def _share_copies_when_inlining() -> None:
    """Halve hsim's cold compile: numba's inliner copies a callee's IR one block at a time.

    Every ``inline="always"`` call (:func:`kernel`) copies the callee's IR, twice, in
    ``InlineWorker.inline_ir``: one ``copy.deepcopy`` per block, each with a memo of its
    own, so each block's copy copies the whole scope again, with every variable of the
    function (numba issue 8989). For hsim's kernels, inlined into one another at
    thousands of sites, that was more than half of a cold compile (measured:
    ``hsim.play.games``'s import with an empty cache 73.5 s, 34.6 s with this). Here the blocks
    of one IR share one memo within the ``inline_ir`` call that copies them: the copy is
    then what one ``deepcopy`` of all its blocks would give, one scope shared by the
    blocks as in the IR copied. The machine code is the same (tests/test_jit.py
    compiles the same kernels both ways and compares; the engine's assembly was compared
    whole). numba's module is changed when it is imported, which loading cached code
    never does.
    """
    if JIT_DISABLED:
        return
    _import_through("numba.core.inline_closurecall", _share_inline_copies)


_share_copies_when_inlining()


class KeptAddresses:
    """Addresses of compiled functions, kept with the compile result they came from.

    numba hands out a function's address only after finding its compile result for a
    signature and the symbol in that result's library, in Python: tens of microseconds,
    which hsim's loops paid for every seat function on every call. An address kept here
    is given again only while the function still holds that same compile result (after
    ``recompile()`` it is found again). Keyed by the identities of the function and of
    the signature object, which the entry keeps alive, so their ids are not reused; no
    numba type is hashed (that would cost as much as the look-up saved).
    """

    def __init__(self) -> None:
        self.known: dict[tuple[int, int], tuple[object, object, object, int]] = {}

    def get(self, func, sig, held) -> int | None:
        """Return the address kept for ``func`` and ``sig`` when ``held`` (the compile
        results ``func`` holds now) still includes the one it came from, else None."""
        entry = self.known.get((id(func), id(sig)))
        if entry is None or entry[0] is not func or entry[1] is not sig:
            return None
        return entry[3] if any(c is entry[2] for c in held) else None

    def keep(self, func, sig, cres, address: int) -> None:
        """Keep ``address``, of ``func``'s compile result ``cres`` for ``sig``."""
        self.known[(id(func), id(sig))] = (func, sig, cres, address)


class _FunctionAddresses:
    """numba's two address look-ups for a function passed to compiled code, kept.

    A compiled call whose arguments include functions (the game loops' tuples of seat
    decisions: twelve) asks numba, in Python, for two addresses of each function on
    every call (``numba.experimental.function_type``'s ``_get_wrapper_address`` and
    ``_get_jit_address``). A dispatcher's are kept (:class:`KeptAddresses`); anything
    else (a ``cfunc``, an object with ``__wrapper_address__``) is always numba's
    look-up. The signature object is the same on every call of one compiled caller
    (numba unpickles it once, ``numba.core.serialize._numba_unpickle``). With
    ``native_address``'s kept addresses, a one-game ``play_range`` of random went from
    304-324 to 135-138 us a call, of heuristic from 371-543 to 167-246 us
    (``scripts/bench_calls.py``, three alternating pairs).
    """

    def __init__(self, look_up, dispatcher_type) -> None:
        self.look_up = look_up
        self.dispatcher_type = dispatcher_type
        self.kept = KeptAddresses()

    def __call__(self, func, sig):
        overloads = getattr(func, "overloads", None)
        address = self.kept.get(func, sig, (overloads or {}).values())
        if address is not None:
            return address
        address = self.look_up(func, sig)
        if isinstance(func, self.dispatcher_type) and overloads is not None:
            cres = overloads.get(tuple(sig.args))
            if cres is not None:
                self.kept.keep(func, sig, cres, address)
        return address


def _remember_addresses(exec_module, module) -> None:
    """Run ``numba.experimental.function_type``'s import, then make its two address
    look-ups :class:`_FunctionAddresses`; leaves the module as numba wrote it when they
    are missing."""
    # deferred: numba's internals, loaded only when this set-up step runs
    from numba.core.dispatcher import Dispatcher

    exec_module(module)
    for name in ("_get_wrapper_address", "_get_jit_address"):
        look_up = getattr(module, name, None)
        if callable(look_up) and not isinstance(look_up, _FunctionAddresses):
            setattr(module, name, _FunctionAddresses(look_up, Dispatcher))


def _remember_function_addresses() -> None:
    """Look each seat function's addresses up once, not on every loop call
    (:class:`_FunctionAddresses`)."""
    if JIT_DISABLED:
        return
    _import_through("numba.experimental.function_type", _remember_addresses)


_remember_function_addresses()


def _typeof_arrays_without_numpy_ma() -> None:
    """Type array arguments without importing ``numpy.ma``.

    The first time numba meets an array argument of a new kind (dtype, dimensions,
    layout) it types it with ``_typeof_ndarray``, whose first line,
    ``isinstance(val, np.ma.MaskedArray)``, imports numpy's masked-array package: about
    50 ms in every hsim process, on its first compiled call (measured), though hsim never
    makes a masked array. None can exist before that package is imported, so until then
    the check is vacuous: arrays are typed here by the rest of numba's function (the same
    type and errors). Once ``numpy.ma`` is imported, numba's function answers, check
    included.
    """
    if JIT_DISABLED:
        return
    # deferred: numba's internals, loaded only when this set-up step runs
    import numpy as np
    from numba.core import errors
    from numba.core import types as nb_types
    from numba.core.typing.typeof import typeof_impl
    from numba.np import numpy_support

    numba_typeof = typeof_impl.dispatch(np.ndarray)

    def typeof_array(val, c):
        if "numpy.ma" in sys.modules:
            return numba_typeof(val, c)
        try:
            dtype = numpy_support.from_dtype(val.dtype)
        except errors.NumbaNotImplementedError:
            raise errors.NumbaValueError(f"Unsupported array dtype: {val.dtype}") from None
        layout = numpy_support.map_layout(val)
        return nb_types.Array(dtype, val.ndim, layout, readonly=not val.flags.writeable)

    typeof_impl.register(np.ndarray)(typeof_array)


_typeof_arrays_without_numpy_ma()


def own_code(py_func) -> bool:
    """Return whether ``py_func`` is hsim's own compiled code: a function of ``hsim`` or
    one of its modules (the built-in strategies are ``hsim.strategies.*``; a strategy
    file is imported as ``hsim_user_...``, not one of them)."""
    module = getattr(py_func, "__module__", None) or ""
    return module == "hsim" or module.startswith("hsim.")


#: The module name prefix of a strategy file that hsim imports (strategy/loader.py).
STRATEGY_FILE_MODULE = "hsim_user_"
#: The cache's folder for the compiled code of strategy files that hsim imports.
STRATEGY_FILES_FOLDER = "strategy-files"


def strategy_file_cache_folder(source: Path) -> Path:
    """Return the folder where the compiled code of ``source``, a strategy file that hsim
    imports (as ``hsim_user_...``), is cached: apart from numba's own folder for the same
    file (:func:`_cache_strategy_files_apart`)."""
    # deferred: numba's cache internals, loaded only to name a cache folder
    from numba.core.caching import UserProvidedCacheLocator

    sub = UserProvidedCacheLocator.get_suitable_cache_subpath(str(source))
    return Path(numba.config.CACHE_DIR) / STRATEGY_FILES_FOLDER / sub


def _cache_strategy_files_apart() -> None:
    """Cache the compiled code of a strategy file that hsim imports in a folder of its own.

    numba's cache entry remembers the module its code was compiled in and, when loaded,
    imports that module by name; its index is keyed by the file only. A file imported
    once as ``mybot`` (``import mybot``) and once by hsim as ``hsim_user_mybot_...``
    would share entries, and the second import fails loading the first one's code
    ("No module named 'mybot'"). hsim's imports go to :func:`strategy_file_cache_folder`
    instead. Left as numba has it when the user names the cache locators
    (``NUMBA_CACHE_LOCATOR_CLASSES``) or numba's cache class lacks its list of them.
    """
    if JIT_DISABLED or getattr(numba.config, "CACHE_LOCATOR_CLASSES", None):
        return
    # deferred: numba's cache internals, loaded only when this set-up step runs
    from numba.core import caching

    impl = getattr(caching, "CacheImpl", None) or getattr(caching, "_CacheImpl", None)
    base = getattr(caching, "UserProvidedCacheLocator", None)
    locators = getattr(impl, "_locator_classes", None)
    if base is None or not isinstance(locators, list):
        return

    class StrategyFileCacheLocator(base):
        def __init__(self, py_func, py_file):
            super().__init__(py_func, py_file)
            self._cache_path = str(strategy_file_cache_folder(Path(py_file)))

        @classmethod
        def from_function(cls, py_func, py_file):
            module = getattr(py_func, "__module__", None) or ""
            if not module.startswith(STRATEGY_FILE_MODULE):
                return None
            return super().from_function(py_func, py_file)

    locators.insert(0, StrategyFileCacheLocator)


_cache_strategy_files_apart()


def _load_cached_code_without_refresh() -> None:
    """Load hsim's own compiled code from the cache without numba's registry refresh.

    numba's ``Cache.load_overload`` first calls ``target_context.refresh()``, which
    imports some thirty of numba's modules and installs their typing and lowering
    registries: 0.1-0.3 s in every hsim process, on its first cache load (measured:
    ``hsim tournament --games 1``, six interleaved runs each, median 0.73 s with it,
    0.57 s without). Rebuilding machine code from the cache needs none of them, only the
    symbols that compiled code links to: the runtime's (``rtsys.initialize``; numba's C
    helpers are added when the target context is made). hsim's compiled code hashes no
    strings, so it needs no string-hash secret (``numba.cpython.hashing``; checked by
    tests/test_jit.py). Every compile still refreshes both contexts first (numba's
    ``CompilerBase``), so code compiled later sees every registry as before.

    Only hsim's own functions (:func:`own_code`) load this way. Anyone else's (a
    strategy file's, a notebook's) load as numba loads them, refresh included: some
    code built around a loaded function lowers more code without a compile (a cached
    ``@vectorize`` builds its ufunc loop so), and needs the registries. Left as numba
    wrote it when its cache class lacks the methods used here.
    """
    if JIT_DISABLED:
        return
    # deferred: numba's internals, loaded only when this set-up step runs
    from numba.core.caching import Cache
    from numba.core.runtime import rtsys

    if not all(hasattr(Cache, n) for n in ("_guard_against_spurious_io_errors", "_load_overload")):
        return
    numba_load_overload = Cache.load_overload

    def load_overload(self, sig, target_context):
        if not own_code(getattr(self, "_py_func", None)):
            return numba_load_overload(self, sig, target_context)
        rtsys.initialize(target_context)
        with self._guard_against_spurious_io_errors():
            return self._load_overload(sig, target_context)
        return None  # the guard swallowed an I/O error: numba treats it as a miss

    load_overload.__doc__ = numba_load_overload.__doc__
    Cache.load_overload = load_overload


_load_cached_code_without_refresh()


def kernel(fn):
    """Compile ``fn`` as an engine kernel: cached, and inlined into its compiled callers.

    Entry points (``play_games``) are compiled without NRT (``_nrt=False``): together
    with inlining, that removes the reference counting numba otherwise does on every
    array passed to a call, which cost ~25 ns per call in the game loop (measured).
    Kernels therefore never allocate arrays; scratch space lives in the state arrays.
    """
    return numba.njit(cache=True, inline="always")(fn)


def with_globals(fn, name: str, **replaced):
    """Return a copy of the plain function ``fn`` named ``name`` whose global names
    ``replaced`` (name=value) mean the values given instead of ``fn``'s module's.

    The same code under another name: compiled, it is a function of its own in numba's
    cache (an index file named after ``name``, in ``fn``'s file's cache folder), whose
    calls of the replaced names compile to the values given. Used to compile the game
    loop once more with a built-in bot in it (:func:`hsim.play.hearts_game.play_games_with`);
    only for hsim's own code, whose every compiled module is in :func:`source_hash`
    (numba keys a cache entry on the code, not on the globals it reads).

    :raises KeyError: a name in ``replaced`` that ``fn``'s module does not define.
    """
    missing = sorted(set(replaced) - set(fn.__globals__))
    if missing:
        raise KeyError(f"{fn.__module__} defines no {', '.join(missing)}")
    namespace = {**fn.__globals__, **replaced}
    copy_fn = types.FunctionType(fn.__code__, namespace, name, fn.__defaults__, fn.__closure__)
    copy_fn.__qualname__ = name
    copy_fn.__module__ = fn.__module__
    copy_fn.__doc__ = fn.__doc__
    copy_fn.__kwdefaults__ = fn.__kwdefaults__
    return copy_fn


def compiled_here(*dispatchers) -> bool:
    """Return whether any of ``dispatchers`` was compiled in this process (a cache miss)."""
    return any(bool(getattr(d, "stats", None) and d.stats.cache_misses) for d in dispatchers)
