"""How a spec's NAME becomes a strategy ready to play (:class:`LoadedStrategy`).

A spec is ``NAME`` or ``NAME(key=value,...)``. NAME is, tried in this order:

1. a built-in strategy (a module of :mod:`hsim.strategies` with a ``STRATEGY``);
2. an entry point of the group ``hsim.strategies``;
3. ``openspiel:ismcts``, ``openspiel:mcts`` or ``openspiel:package.module:factory``: an
   OpenSpiel bot (:mod:`hsim.bridges.openspiel.strategies`, the ``openspiel`` extra);
   ``engine:CMD ARGS``: an outside program over the engine protocol
   (:mod:`hsim.bridges.engine.strategies`, docs/protocol.md);
4. ``package.module:attr``;
5. ``path/to/file.py:attr``: the file is imported under a name made from its resolved
   path (:func:`file_module_name`), so two copies of one file in two folders (two versions
   of a bot) load as two strategies, and a compiled file's cached code is found again in a
   later run. A ``package.module`` is imported through ``sys.path``, so one process holds
   one version of it: name two versions by their files.

The attribute is a :class:`~hsim.strategy.contract.CompiledStrategy` or a plain-Python class
(instantiated with the parameters as keyword arguments). ``--players`` splits seats on
commas outside parentheses.

The text of a spec is read by :mod:`hsim.strategy.specs`.
"""

from __future__ import annotations

import ast
import hashlib
import importlib
import importlib.metadata
import importlib.util
import inspect
import json
import math
import pkgutil
import sys
from pathlib import Path
from typing import Any

from hsim.engine._numba import STRATEGY_FILE_MODULE
from hsim.engine.native import PASS_AT_SIG, PLAY_AT_SIG, native_address, native_enabled
from hsim.errors import describe, strategy_failure
from hsim.model.rules import Rules
from hsim.strategy.contract import (
    CompiledStrategy,
    LoadedStrategy,
    Param,
    StrategyError,
    StrategySpecError,
    check_params,
    declared,
)
from hsim.strategy.specs import (  # noqa: F401
    check_engine_program,
    engine_command,
    is_file_target,
    parse_spec,
    read_strategy_file,
    split_file_spec,
    split_players,
)

BUILTIN_PACKAGE = "hsim.strategies"
ENTRY_POINT_GROUP = "hsim.strategies"
#: Spec prefixes whose strategies live in a bridge (``openspiel:ismcts``): the module,
#: imported by name only when such a spec is loaded, has ``strategy_class(rest)``. By
#: name, because a bridge sits above this layer (it plays games) and imports the loader.
BRIDGES = {
    "openspiel": "hsim.bridges.openspiel.strategies",
    "engine": "hsim.bridges.engine.strategies",
}


def builtin_names() -> list[str]:
    """Return the names of the built-in strategies (modules of ``hsim.strategies``)."""
    pkg = importlib.import_module(BUILTIN_PACKAGE)
    names = []
    for mod in pkgutil.iter_modules(pkg.__path__):
        module = importlib.import_module(f"{BUILTIN_PACKAGE}.{mod.name}")
        strategy = getattr(module, "STRATEGY", None)
        if strategy is not None:
            names.append(_display_name(strategy, mod.name))
    return sorted(names)


def _display_name(obj: Any, fallback: str) -> str:
    return getattr(obj, "name", None) or getattr(obj, "__name__", fallback)


def find_builtin(name: str) -> Any | None:
    # A built-in lives in the module of its name (``random`` in ``random_bot``, to keep
    # clear of the standard library); importing only that one keeps other bots uncompiled.
    for module_name in (name, f"{name}_bot"):
        if not module_name.isidentifier():
            return None
        try:
            module = importlib.import_module(f"{BUILTIN_PACKAGE}.{module_name}")
        except ModuleNotFoundError as exc:
            if exc.name != f"{BUILTIN_PACKAGE}.{module_name}":
                raise
            continue
        strategy = getattr(module, "STRATEGY", None)
        if strategy is not None and _display_name(strategy, module_name) == name:
            return strategy
    return None


def builtin_declarations(module_name: str) -> dict[str, Param] | None:
    """Return the parameter declarations of the built-in module ``module_name`` (``pimc``,
    ``random_bot``) read from its source, without importing it: a compiled bot compiles
    when it is imported, which takes a minute on a cold cache.

    Read from ``STRATEGY = CompiledStrategy(..., params={...})``: keys are text, values
    numbers or ``Param(...)`` of literals, and ``**other.STRATEGY.params`` takes a sibling
    built-in's. Returns None when the module is missing or its declarations are not of
    that form (they are then checked when the bot loads).
    """
    spec = importlib.util.find_spec(f"{BUILTIN_PACKAGE}.{module_name}")
    if spec is None or not spec.origin:
        return None
    try:
        tree = ast.parse(Path(spec.origin).read_bytes())
    except (OSError, SyntaxError, ValueError):
        return None
    for node in tree.body:
        if (
            isinstance(node, ast.Assign)
            and [getattr(t, "id", None) for t in node.targets] == ["STRATEGY"]
            and isinstance(node.value, ast.Call)
        ):
            params = [k.value for k in node.value.keywords if k.arg == "params"]
            return _literal_declarations(params[0]) if params else {}
    return None


def _literal_declarations(node: ast.expr) -> dict[str, Param] | None:
    if not isinstance(node, ast.Dict):
        return None
    out: dict[str, Param] = {}
    for key, value in zip(node.keys, node.values, strict=True):
        if key is None:  # **heuristic.STRATEGY.params
            chain = value
            names = []
            while isinstance(chain, ast.Attribute):
                names.append(chain.attr)
                chain = chain.value
            if names != ["params", "STRATEGY"] or not isinstance(chain, ast.Name):
                return None
            inner = builtin_declarations(chain.id)
            if inner is None:
                return None
            out.update(inner)
        elif isinstance(key, ast.Constant) and isinstance(key.value, str):
            param = _literal_param(value)
            if param is None:
                return None
            out[key.value] = param
        else:
            return None
    return out


def _literal_param(node: ast.expr) -> Param | None:
    kinds = {"int": int, "float": float}

    def literal(arg: ast.expr) -> Any:
        if isinstance(arg, ast.Name) and arg.id in kinds:
            return kinds[arg.id]
        return ast.literal_eval(arg)

    try:
        if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "Param":
            args = [literal(a) for a in node.args]
            kwargs = {k.arg: literal(k.value) for k in node.keywords if k.arg}
            if len(kwargs) != len(node.keywords):
                return None
            return Param(*args, **kwargs)
        value = ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError):
        return None
    return declared(value) if isinstance(value, (int, float)) else None


def precheck(spec: str) -> None:
    """Refuse ``spec`` before anything is imported or compiled when its strategy cannot be
    found: a bad spec, an unknown name, a strategy file that is missing, not a regular
    file or not ``.py``, and a built-in's parameter that is unknown or out of range
    (:func:`builtin_declarations`). A ``package.module:attr`` is checked when it is loaded.

    :raises StrategySpecError: saying what is wrong and what is accepted.
    """
    name, raw = parse_spec(spec)
    argv = engine_command(name)
    if argv is not None:
        check_engine_program(argv)
        return
    target, colon, attr = name.rpartition(":")
    if colon and target and attr:
        if is_file_target(target):
            read_strategy_file(Path(target).expanduser().resolve(), target)
            if not target.endswith(".py"):
                raise StrategySpecError(
                    f"strategy file {target!r} is not a Python file (.py); give "
                    "path/to/file.py:attr"
                )
        return
    for module_name in (name, f"{name}_bot"):
        if module_name.isidentifier() and importlib.util.find_spec(
            f"{BUILTIN_PACKAGE}.{module_name}"
        ):
            declarations = builtin_declarations(module_name)
            if declarations is not None:  # a typo is refused before the bot compiles
                check_params(name, declarations, raw)
            return
    if any(ep.name == name for ep in importlib.metadata.entry_points(group=ENTRY_POINT_GROUP)):
        return
    package = importlib.util.find_spec(BUILTIN_PACKAGE)
    known = sorted(
        m.name.removesuffix("_bot")
        for m in pkgutil.iter_modules(package.submodule_search_locations or [])
    )
    raise StrategySpecError(
        f"unknown strategy {name!r}; built-in strategies: {', '.join(known)}; or give an "
        "entry point, package.module:attr or path/to/file.py:attr (see `hsim strategies`)"
    )


def find_entry_point(name: str) -> Any | None:
    for ep in importlib.metadata.entry_points(group=ENTRY_POINT_GROUP):
        if ep.name == name:
            try:
                return ep.load()
            except BaseException as exc:
                if not strategy_failure(exc):
                    raise
                raise StrategyError(
                    f"entry point {name!r} ({ep.value}) failed to load: {describe(exc)}"
                ) from None
    return None


def file_module_name(path: Path) -> str:
    """Return the module name a strategy file at ``path`` is imported under.

    ``hsim_user_<stem>_<first 16 hex digits of the sha256 of the resolved absolute path>``:
    the same in every process (the on-disk cache of a ``cache=True`` function remembers the
    module it was compiled in, and a later run must import the file under that name
    again), and different for two copies of one file in two folders (e.g. a ``git
    worktree`` of ``main`` and the working tree), so both load at one table as themselves.

    >>> file_module_name(Path("/bots/my-bot.py"))
    'hsim_user_my_bot_972762d88c711a61'
    """
    path = Path(path).expanduser().resolve()
    stem = "".join(ch if ch.isalnum() else "_" for ch in path.stem)
    digest = hashlib.sha256(str(path).encode("utf-8", "surrogateescape")).hexdigest()
    return f"{STRATEGY_FILE_MODULE}{stem}_{digest[:16]}"


def _from_file(path_text: str, attr: str) -> Any:
    path = Path(path_text).expanduser().resolve()
    read_strategy_file(path, path_text)  # a regular file of a sane size, or a clear error
    if path.suffix != ".py":
        raise StrategySpecError(
            f"strategy file {path_text!r} is not a Python file (.py); give path/to/file.py:attr"
        )
    module_name = file_module_name(path)
    module = sys.modules.get(module_name)
    if module is None:
        spec = importlib.util.spec_from_file_location(module_name, path)
        module = importlib.util.module_from_spec(spec)
        sys.modules[module_name] = module
        try:
            spec.loader.exec_module(module)
        except BaseException as exc:
            del sys.modules[module_name]
            if not strategy_failure(exc):
                raise
            if _writes_observation(exc):
                raise StrategyError(
                    f"strategy file {path_text!r} writes into its observation (public or "
                    "private), which is read-only: a strategy reads the table and may not "
                    "change it"
                ) from None
            raise StrategyError(
                f"strategy file {path_text!r} failed to import: {describe(exc)}"
            ) from None
    return _attr(module, attr, path_text)


def _writes_observation(exc: BaseException) -> bool:
    """Whether ``exc`` is numba refusing a write into a read-only array: a compiled
    decision that writes into ``public`` or ``private`` (:mod:`hsim.engine.signatures`)."""
    text = str(exc)
    return type(exc).__name__ == "TypingError" and "setitem" in text and "readonly" in text


def _attr(module: Any, attr: str, where: str) -> Any:
    try:
        return getattr(module, attr)
    except AttributeError:
        raise StrategySpecError(f"{where} has no attribute {attr!r}") from None


def untrusted_code(specs) -> list[str]:
    """Return what loading ``specs`` would import and run that is not built-in
    (:func:`code_to_import` of each, sorted, once each): what a run folder's ``run.json``
    names and a command that reads it loads only with ``--trust``."""
    return sorted({c for c in map(code_to_import, specs) if c is not None})


def code_to_import(spec: str) -> str | None:
    """Return what loading ``spec`` would import and run, or None for a built-in.

    ``file /abs/path/bots.py``, ``module mybots``, ``entry point NAME (module:attr)`` or
    ``engine command ./mybot --depth 3`` (a program it would run).
    """
    name = parse_spec(spec)[0]
    if find_builtin(name) is not None:
        return None
    for ep in importlib.metadata.entry_points(group=ENTRY_POINT_GROUP):
        if ep.name == name:
            return f"entry point {name} ({ep.value})"
    if engine_command(name) is not None:
        return f"engine command {name.removeprefix('engine:').strip()}"
    target, colon, attr = name.rpartition(":")
    if colon and target and attr:
        if is_file_target(target):
            return f"file {Path(target).expanduser().resolve()}"
        return f"module {target}"
    return None  # an unknown name: loading it fails without importing anything


def find(name: str) -> Any:
    """Return the object NAME refers to (see the module docstring for the lookup order).

    :raises StrategyError: nothing by that name; the message lists the built-in names.
    """
    obj = find_builtin(name)
    if obj is not None:
        return obj
    obj = find_entry_point(name)
    if obj is not None:
        return obj
    scheme, colon, rest = name.partition(":")
    if colon and scheme in BRIDGES:
        try:
            bridge = importlib.import_module(BRIDGES[scheme])
        except ImportError as exc:
            raise StrategyError(f"strategy {name!r}: {exc}") from None
        return bridge.strategy_class(rest)
    target, colon, attr = name.rpartition(":")
    if colon and target and attr:
        if is_file_target(target):
            return _from_file(target, attr)
        try:
            module = importlib.import_module(target)
        except ImportError as exc:
            raise StrategySpecError(
                f"cannot import module {target!r} for strategy {name!r}: {exc}"
            ) from None
        except BaseException as exc:
            if not strategy_failure(exc):
                raise
            raise StrategyError(
                f"module {target!r} of strategy {name!r} failed to import: {describe(exc)}"
            ) from None
        return _attr(module, attr, f"module {target!r}")
    raise StrategySpecError(
        f"unknown strategy {name!r}; built-in strategies: {', '.join(builtin_names())}; "
        "or give an entry point, package.module:attr or path/to/file.py:attr "
        "(see `hsim strategies`)"
    )


def _python_params(cls: Any, kwargs: dict[str, Any]) -> dict[str, Any]:
    """Return every parameter a plain-Python strategy class is made with: its defaults,
    overridden by ``kwargs``; a default that JSON cannot hold is kept as its ``repr``."""
    values: dict[str, Any] = {}
    for name, param in inspect.signature(cls).parameters.items():
        if param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD):
            continue
        if param.default is not param.empty:
            values[name] = param.default
    values.update(kwargs)
    for name, value in values.items():
        try:
            json.dumps(value, allow_nan=True)
        except (TypeError, ValueError):
            values[name] = repr(value)
    return values


def _games(value: Any) -> tuple[str, ...]:
    """Return a strategy's ``games`` as a tuple of lower-case names (``"kierki"`` alone
    counts as ``("kierki",)``)."""
    if isinstance(value, str):
        value = (value,)
    try:
        return tuple(str(g).strip().lower() for g in value)
    except TypeError:
        raise StrategyError(
            f"a strategy's games must be a name or a tuple of names (hearts, kierki), not {value!r}"
        ) from None


def _python_value(strategy: str, key: str, text: str) -> Any:
    low = text.lower()
    if low in ("true", "false"):
        return low == "true"
    for cast in (int, float):
        try:
            value = cast(text)
        except ValueError:
            continue
        if isinstance(value, float) and not math.isfinite(value):
            raise StrategySpecError(
                f"strategy {strategy!r}: parameter {key}={text!r} is not a finite number"
            )
        return value
    return text


def python_params(obj: Any) -> dict[str, Param] | None:
    """Return a plain-Python strategy class's declared parameters (its ``params``
    attribute: name -> :class:`~hsim.strategy.contract.Param` or default), or None if it declares
    none.

    :raises StrategyError: ``params`` is not such a mapping.
    """
    decl = getattr(obj, "params", None)
    if decl is None:
        return None
    try:
        return {str(k): declared(v) for k, v in dict(decl).items()}
    except (TypeError, ValueError):
        raise StrategyError(
            f"strategy {_display_name(obj, '?')!r}: its params attribute must map each "
            f"parameter name to a hsim.strategy.contract.Param or a number, not {decl!r}"
        ) from None


def _check_native_entries(name: str, bundle: CompiledStrategy) -> None:
    """Refuse native entries (:mod:`hsim.engine.native`) not compiled with exactly their
    signatures: the loops would call them at an address that cannot check its arguments.

    Not checked under ``NUMBA_DISABLE_JIT`` (nothing is compiled; the loops then call
    every seat through its functions).

    :raises StrategySpecError: naming the entry and the signature it must have.
    """
    if not native_enabled():
        return
    entries = (
        ("native_pass", PASS_AT_SIG, "PASS_AT_SIG"),
        ("native_play", PLAY_AT_SIG, "PLAY_AT_SIG"),
    )
    for field, signature, signature_name in entries:
        entry = getattr(bundle, field)
        if entry is None:
            continue
        try:
            native_address(entry, signature)
        except TypeError as exc:
            raise StrategySpecError(
                f"strategy {name!r}: its {field} is not usable ({exc}). A native entry "
                f"must be an @njit function compiled with hsim.engine.native.{signature_name} "
                f"alone, and native entries are for hsim's own bots: leave {field} unset"
            ) from None


def load(spec: str) -> LoadedStrategy:
    """Resolve one seat's spec into a :class:`LoadedStrategy`.

    :raises StrategyError: unknown name, bad parameters, or an object that is not a
        strategy.
    """
    name, raw = parse_spec(spec)
    obj = find(name)
    if isinstance(obj, CompiledStrategy):
        _check_native_entries(name, obj)
        params = obj.params_array(raw)
        values = dict(zip(obj.params, params.tolist(), strict=False))
        return LoadedStrategy(
            spec,
            obj.name if find_builtin(name) else name,
            "compiled",
            compiled=obj,
            params=params,
            param_values=values,
            games=_games(obj.games),
        )
    if inspect.isclass(obj) and callable(getattr(obj, "play", None)):
        decl = python_params(obj)
        if decl is None:
            kwargs = {k: _python_value(name, k, v) for k, v in raw.items()}
        else:  # declared: every parameter reaches the class, checked as for a compiled one
            kwargs = check_params(name, decl, raw)
        try:
            inspect.signature(obj).bind(**kwargs)
        except TypeError as exc:
            raise StrategySpecError(
                f"strategy {name!r} does not take parameters {sorted(kwargs)}: {exc} "
                f"(its signature: {inspect.signature(obj)})"
            ) from None
        return LoadedStrategy(
            spec,
            name,
            "python",
            python_factory=lambda: obj(**kwargs),
            param_values=_python_params(obj, kwargs),
            games=_games(getattr(obj, "games", ("hearts",))),
            check_rules=getattr(obj, "check_rules", None),
        )
    raise StrategySpecError(
        f"{name!r} is neither a CompiledStrategy nor a class with a play(obs, legal, rng) "
        "method (see docs/strategies.md)"
    )


def load_players(specs: list[str], rules: Rules | None = None) -> list[LoadedStrategy]:
    """Resolve one spec per seat of ``rules`` (default: Hearts, 4 seats).

    :raises StrategyError: a number of specs other than the rules' player count (docs/rules.md
        B1: Kierki 3 or 4, Hearts 4), an invalid spec, a strategy that does not play
        the rules' game, or one whose ``check_rules`` refuses the rules.
    """
    n_seats = 4 if rules is None else rules.players
    game = "hearts" if rules is None else rules.game
    if len(specs) != n_seats:
        example = ",".join(["random"] * n_seats)
        raise StrategySpecError(
            f"{len(specs)} player{'' if len(specs) == 1 else 's'} given, but {game} with "
            f"these rules has {n_seats} seats: "
            f"give one spec per seat, e.g. --players {example}"
        )
    players = [load(s) for s in specs]
    for p in players:
        check_game(p, game)
        if rules is not None and p.check_rules is not None:
            p.check_rules(rules)  # e.g. an OpenSpiel bot under rules OpenSpiel cannot play
    return players


def check_game(player: LoadedStrategy, game: str) -> None:
    """Refuse a strategy that does not play ``game`` (``hearts`` or ``kierki``).

    :raises StrategyError: naming the games it plays and the strategies that play ``game``.
    """
    if game not in player.games:
        able = [r["name"] for r in describe_available() if game in r.get("games", ())]
        raise StrategySpecError(
            f"strategy {player.spec!r} does not play {game} (it plays: "
            f"{', '.join(player.games)}); strategies that play {game}: {', '.join(able)}"
        )


def describe_available() -> list[dict]:
    """Return one row per available strategy: name, source, description and ``params``, a
    list of (name, default, meaning) for a built-in (None for an entry point: unknown
    until loaded).
    """
    rows: list[dict] = []
    pkg = importlib.import_module(BUILTIN_PACKAGE)
    for mod in pkgutil.iter_modules(pkg.__path__):
        module = importlib.import_module(f"{BUILTIN_PACKAGE}.{mod.name}")
        s = getattr(module, "STRATEGY", None)
        if isinstance(s, CompiledStrategy):
            params = []
            for k, v in s.params.items():
                d = declared(v)
                meaning = d.help or s.param_help.get(k, "")
                params.append((k, f"{d.default:g}", f"{meaning} ({d.allowed()})".strip()))
            rows.append(
                {
                    "name": s.name,
                    "source": "built-in",
                    "params": params,
                    "description": s.description,
                    "games": tuple(s.games),
                }
            )
    for ep in importlib.metadata.entry_points(group=ENTRY_POINT_GROUP):
        rows.append(
            {
                "name": ep.name,
                "source": f"entry point {ep.value}",
                "params": None,
                "description": "",
            }
        )
    return rows
