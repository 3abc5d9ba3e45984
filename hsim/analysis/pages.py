"""Self-contained HTML pages of hsim's results: ``hsim report RUN --html FILE``.

A page opens offline: its charts are Vega-Lite specs (built with altair) rendered by
vega, vega-lite and vega-embed, whose scripts are inlined once per page from
``vl-convert-python``'s bundle. Altair was chosen over plotly because it inlines offline
(``vl_convert.javascript_bundle``, ~0.9 MB once per page whatever the number of charts),
its specs are plain JSON (declarative, easy to test and to reuse), and interval charts
(points with error bars) are one layered spec. Both come from the optional ``html``
extra; :func:`require_html` says how to install it.

The page shell (:class:`Page`) serves every command with an HTML page (report, sprt,
ladder, compare-rules): a header of facts (:meth:`Page.fact`, :meth:`Page.provenance`),
sections holding tables (:meth:`Page.table`) and charts (:meth:`Page.chart`), and
:meth:`Page.render` / :func:`write_page` (atomic: a temporary name, then a rename). The
pages of sprt, ladder and compare-rules (:func:`sprt_page`, :func:`ladder_page`,
:func:`compare_page`) are built from the very dicts those commands print or write as
JSON, so a page never computes a figure of its own.

Stable hooks for tests and scripts: a chart is ``<div class="chart" id="chart-NAME"
data-chart="NAME">``; a table is ``<table id="table-NAME" data-table="NAME">``, its rows
``<tr data-row="KEY">`` and its cells ``<td data-key="FIELD">`` with ``data-value`` (a
number or a string, full precision) or, for an interval, ``data-estimate``, ``data-low``,
``data-high`` and ``data-n``, exactly as ``hsim report --json`` gives them.

Only counts and summary figures go into a page (histograms are binned in pandas before
they are charted), so its size does not grow with the run.
"""

from __future__ import annotations

import html
import json
import math
import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from hsim import __version__
from hsim.analysis.report import report_tally
from hsim.analysis.scan import open_run
from hsim.errors import EXIT_USAGE, HsimError, install_hint
from hsim.runner.config import without_home


class HtmlUnavailable(HsimError, RuntimeError):
    """altair or vl-convert-python (the ``html`` extra) is missing; the message says how
    to install them."""

    exit_code = EXIT_USAGE


class PageTargetError(HsimError, ValueError):
    """The page cannot be written where asked (a folder, a missing folder, a run's own
    files)."""

    exit_code = EXIT_USAGE


#: The errors of this module a command line turns into a message (exit 2).
ERRORS = (HtmlUnavailable, PageTargetError)


def require_html() -> None:
    """Import the ``html`` extra's packages, or say how to install them.

    :raises HtmlUnavailable: altair or vl_convert is missing.
    """
    try:
        # deferred: altair and vl-convert-python are the optional [html] extra
        import altair  # noqa: F401
        import vl_convert  # noqa: F401
    except ImportError as exc:
        raise HtmlUnavailable(
            f"--html needs altair and vl-convert-python ({exc.name or 'one'} is not "
            f"installed): {install_hint('html')}"
        ) from None


def check_target(path: str | Path, run_dir: str | Path | None = None) -> Path:
    """Return ``path`` as a Path after checking that a page can be written there: its
    folder exists, it is not a folder, and it is not inside the run folder ``run_dir``
    (whose files are the run's own: the manifest and the parts that ``hsim verify``
    checks).

    :raises PageTargetError: one of these does not hold.
    """
    target = Path(path)
    if target.is_dir():
        raise PageTargetError(f"--html {target} is a folder; give a file name such as report.html")
    parent = target.resolve().parent
    if not parent.is_dir():
        raise PageTargetError(f"--html {target}: the folder {parent} does not exist")
    if run_dir is not None:
        run = Path(run_dir).resolve()
        if run == parent or run in parent.parents:
            raise PageTargetError(
                f"--html {target} is inside the run folder {run_dir}, which holds the run's "
                "own files; write the page elsewhere"
            )
    return target


def write_page(text: str, path: str | Path) -> Path:
    """Write ``text`` to ``path`` atomically (a temporary name in the same folder, then a
    rename) and return the path. :raises OSError: the file could not be written."""
    target = Path(path)
    tmp = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    try:
        tmp.write_text(text, encoding="utf-8")
        os.replace(tmp, target)
    finally:
        if tmp.exists():
            tmp.unlink()
    return target


def _json_script(value: Any) -> str:
    # "</" would end the script element; "<\/" is the same JSON string.
    return json.dumps(value, separators=(",", ":")).replace("</", "<\\/")


def _number(v: Any) -> str:
    if isinstance(v, float):
        return repr(v)
    return str(v)


def _is_interval(v: Any) -> bool:
    return isinstance(v, dict) and "estimate" in v and "low" in v


def _fmt(v: Any, digits: int = 3) -> str:
    if v is None:
        return "–"
    if _is_interval(v):
        est, low, high = v["estimate"], v["low"], v["high"]
        if low is None or high is None or math.isnan(low) or math.isnan(high):
            return f"{est:.{digits}f}"
        return f"{est:.{digits}f} [{low:.{digits}f}, {high:.{digits}f}]"
    if isinstance(v, bool):
        return str(v).lower()
    if isinstance(v, float):
        return f"{v:.{digits}f}"
    if isinstance(v, int):
        return f"{v:,}"
    if isinstance(v, (list, tuple)):
        return ", ".join(map(str, v))
    return str(v)


def cell(key: str, value: Any, digits: int = 3) -> str:
    """Return one ``<td>`` for ``value`` (an interval dict, a number, a string or None)
    with the data attributes of the module docstring."""
    attrs = [f'data-key="{html.escape(key)}"']
    if _is_interval(value):
        for part in ("estimate", "low", "high", "n"):
            if value.get(part) is not None:
                attrs.append(f'data-{part}="{_number(value[part])}"')
    elif value is not None and not isinstance(value, (dict, list, tuple)):
        attrs.append(f'data-value="{html.escape(_number(value))}"')
    return f"<td {' '.join(attrs)}>{html.escape(_fmt(value, digits))}</td>"


@dataclass
class Column:
    """A table column: ``key`` a path into the row dict (``places.1``), ``label`` its
    heading, ``digits`` the decimals shown."""

    key: str
    label: str
    digits: int = 3

    def get(self, row: dict) -> Any:
        value: Any = row
        for part in self.key.split("."):
            if not isinstance(value, dict) or part not in value:
                return None
            value = value[part]
        return value


@dataclass
class Page:
    """An HTML page being built: a title, facts for the header, then blocks (tables and
    charts, in order). :meth:`render` gives the whole page as one string."""

    title: str
    facts: list[tuple[str, str, str]] = field(default_factory=list)
    blocks: list[str] = field(default_factory=list)
    specs: dict[str, dict] = field(default_factory=dict)

    def fact(self, key: str, label: str, value: Any) -> None:
        """Add a header line ``label: value`` (its ``<dd>`` has ``data-fact="key"``)."""
        self.facts.append((key, label, _fmt(value)))

    def provenance(self, rules: str, players: str, seed: Any, command: str | None) -> None:
        """Add the facts every page states: the rules string, the players, the seed, the
        hsim version and the command line that made the page."""
        self.fact("rules", "rules", rules)
        self.fact("players", "players", players)
        self.fact("seed", "seed", seed)
        self.fact("hsim", "hsim version", __version__)
        self.fact("command", "command", command or "unknown")

    def heading(self, text: str, note: str = "") -> None:
        """Start a section with ``text`` and an optional explanatory note."""
        self.blocks.append(f"<h2>{html.escape(text)}</h2>")
        if note:
            self.blocks.append(f'<p class="note">{html.escape(note)}</p>')

    def table(self, name: str, rows: Iterable[dict], columns: list[Column], key: str) -> None:
        """Add a table ``table-NAME``: one row per dict of ``rows`` (``data-row`` its
        ``key`` field, which may be a dotted path), one cell per column."""
        head = "".join(f"<th>{html.escape(c.label)}</th>" for c in columns)
        body = []
        for row in rows:
            row_key = Column(key, "").get(row)
            cells = "".join(cell(c.key, c.get(row), c.digits) for c in columns)
            body.append(f'<tr data-row="{html.escape(str(row_key))}">{cells}</tr>')
        self.blocks.append(
            f'<div class="scroll"><table id="table-{name}" data-table="{name}"><thead><tr>'
            f"{head}</tr></thead><tbody>{''.join(body)}</tbody></table></div>"
        )

    def chart(self, name: str, chart: Any) -> None:
        """Add a chart ``chart-NAME``: an altair chart (or a Vega-Lite spec dict)."""
        spec = chart if isinstance(chart, dict) else chart.to_dict()
        self.specs[name] = spec
        self.blocks.append(f'<div class="chart" id="chart-{name}" data-chart="{name}"></div>')

    def render(self) -> str:
        """Return the page: one HTML document with the vega scripts inlined.

        :raises HtmlUnavailable: the ``html`` extra is missing.
        """
        require_html()
        # deferred: vl-convert-python is the optional [html] extra
        import vl_convert
        from altair.utils._importers import vl_version_for_vl_convert

        bundle = vl_convert.javascript_bundle(vl_version=vl_version_for_vl_convert())
        facts = "".join(
            f'<dt>{html.escape(label)}</dt><dd data-fact="{key}">{html.escape(value)}</dd>'
            for key, label, value in self.facts
        )
        specs = "".join(
            f'<script type="application/json" id="spec-{name}">{_json_script(spec)}</script>'
            for name, spec in self.specs.items()
        )
        return _SHELL.format(
            title=html.escape(self.title),
            version=html.escape(__version__),
            facts=facts,
            body="\n".join(self.blocks),
            specs=specs,
            bundle=bundle.replace("</script", "<\\/script"),
        )


_SHELL = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="generator" content="hsim {version}">
<title>{title}</title>
<style>
body {{ font-family: system-ui, sans-serif; margin: 1.5em 2em; color: #222; }}
dl {{ display: grid; grid-template-columns: max-content auto; gap: .2em 1em; }}
dt {{ font-weight: 600; }} dd {{ margin: 0; font-family: monospace; }}
table {{ border-collapse: collapse; margin: .5em 0 1.5em; font-size: 90%; }}
th, td {{ border: 1px solid #ccc; padding: .2em .5em; text-align: right; white-space: nowrap; }}
th {{ background: #f3f3f3; }} td:first-child {{ text-align: left; }}
.scroll {{ overflow-x: auto; }} .chart {{ margin: .5em 0 1.5em; }}
.note {{ color: #555; max-width: 60em; }}
</style>
<script>{bundle}</script>
</head>
<body>
<h1>{title}</h1>
<dl id="facts">{facts}</dl>
{body}
{specs}
<script>
document.querySelectorAll("[data-chart]").forEach(function (el) {{
  var spec = JSON.parse(document.getElementById("spec-" + el.dataset.chart).textContent);
  vegaEmbed(el, spec, {{actions: false, renderer: "svg"}})
    .then(function () {{ el.dataset.rendered = "true"; }})
    .catch(function (err) {{ el.dataset.error = String(err); console.error(err); }});
}});
</script>
</body>
</html>
"""


# ------------------------------------------------------------------ the report page

_INTERVAL = "95% interval"


def command_line(argv: list[str] | None) -> str | None:
    """Return ``argv`` as the run manifests write a command (joined, the home folder as
    ``~``), or None."""
    return without_home(" ".join(argv)) if argv else None


def interval_chart(
    rows: list[dict],
    label: str,
    metric: str,
    title: str,
    color=None,
    lines: dict[str, float] | None = None,
    keep_order: bool = False,
):
    """Return an altair chart of ``metric`` (an interval dict in each row) per ``label``:
    a point at the estimate and an error bar from low to high. color: a field to colour
    and offset by (a breakdown such as the pass direction), or None. lines: vertical
    reference lines, name -> x (such as ``{"zero": 0}``), dashed and labelled. keep_order:
    the labels top to bottom in the rows' order (else sorted)."""
    # deferred: altair is the optional [html] extra
    import altair as alt

    data = []
    for r in rows:
        v = r.get(metric)
        if not _is_interval(v):
            continue
        item = {label: str(r[label]), "estimate": v["estimate"], "low": v["low"], "high": v["high"]}
        if color:
            item[color] = str(r[color])
        data.append(item)
    frame = pd.DataFrame(data)
    sort = list(dict.fromkeys(str(r[label]) for r in rows)) if keep_order else "ascending"
    y = alt.Y(f"{label}:N", title=label.replace("_", " "), sort=sort)
    enc: dict[str, Any] = {"y": y}
    if color:
        order = list(dict.fromkeys(str(r[color]) for r in rows))
        enc["color"] = alt.Color(f"{color}:N", sort=order, title=color.replace("_", " "))
        enc["yOffset"] = alt.YOffset(f"{color}:N", sort=order)
    base = alt.Chart(frame)
    x_title = f"{title} ({_INTERVAL})"
    points = base.mark_point(filled=True, size=60).encode(
        x=alt.X("estimate:Q", title=x_title, scale=alt.Scale(zero=False)),
        tooltip=[label, *([color] if color else []), "estimate", "low", "high"],
        **enc,
    )
    bars = base.mark_rule().encode(x="low:Q", x2="high:Q", **enc)
    chart = bars + points
    if lines:
        refs = pd.DataFrame({"line": list(lines), "x": list(lines.values())})
        chart = (
            alt.Chart(refs)
            .mark_rule(strokeDash=[4, 4], color="#888")
            .encode(x="x:Q", tooltip=["line", "x"])
            + chart
        )
    return chart.properties(title=title, width=520)


def place_chart(rows: list[dict], label: str):
    """Return a stacked bar chart of the place shares (1st, 2nd, ...) per ``label``."""
    # deferred: altair is the optional [html] extra
    import altair as alt

    data = [
        {label: str(r[label]), "place": int(p), "share": v["estimate"]}
        for r in rows
        for p, v in r["places"].items()
        if v is not None
    ]
    return (
        alt.Chart(pd.DataFrame(data))
        .mark_bar()
        .encode(
            y=alt.Y(f"{label}:N", title=label),
            x=alt.X(
                "share:Q", stack="normalize", title="share of games", axis=alt.Axis(format="%")
            ),
            color=alt.Color(
                "place:O", title="place", scale=alt.Scale(scheme="blues", reverse=True)
            ),
            order=alt.Order("place:O"),
            tooltip=[label, "place", alt.Tooltip("share:Q", format=".3f")],
        )
        .properties(title="Place distribution", width=520)
    )


def histogram_frame(counts: dict[Any, int], width: int) -> pd.DataFrame:
    """Return a Counter of values (value -> count) binned into ``width``-wide bins:
    columns ``start``, ``end``, ``count`` (one row per bin holding something)."""
    frame = pd.DataFrame({"value": list(counts), "count": list(counts.values())})
    if frame.empty:
        return pd.DataFrame({"start": [], "end": [], "count": []})
    frame["start"] = (frame["value"].astype(float) // width * width).astype(int)
    out = frame.groupby("start", as_index=False)["count"].sum()
    out["end"] = out["start"] + width
    return out[["start", "end", "count"]]


def histogram_chart(frame: pd.DataFrame, title: str, x_title: str, color: str | None = None):
    """Return a histogram of a :func:`histogram_frame` (bars from start to end); color:
    a column to draw one histogram per value of (stacked)."""
    # deferred: altair is the optional [html] extra
    import altair as alt

    enc: dict[str, Any] = {}
    if color:
        enc["color"] = alt.Color(f"{color}:N")
    return (
        alt.Chart(frame)
        .mark_bar(opacity=0.8)
        .encode(
            x=alt.X("start:Q", bin="binned", title=x_title),
            x2="end:Q",
            y=alt.Y("count:Q", title="count", stack=True),
            tooltip=[*([color] if color else []), "start", "end", "count"],
            **enc,
        )
        .properties(title=title, width=520)
    )


def _key_columns(label: str, kierki: bool, seats: int) -> list[Column]:
    cols = [
        Column(label, label),
        Column("seat_games", "seat-games"),
        Column("seat_deals", "seat-deals"),
    ]
    if label != "strategy":
        cols.insert(1, Column("strategies", "strategies"))
    if not kierki:
        cols.append(Column("points_per_deal", "points/deal"))
    cols += [
        Column("score_per_deal", "score/deal"),
        Column("win_rate", "win rate"),
        Column("mean_place", "mean place"),
    ]
    cols += [Column(f"places.{p}", f"place {p}") for p in range(1, seats + 1)]
    if not kierki:
        cols.append(Column("moon_rate", "moons/deal", 5))
    return cols + [Column("censored", "censored")]


def report_page(rep: dict[str, Any], tally: Any, manifest: dict[str, Any]) -> Page:
    """Return the :class:`Page` of a report.

    rep: :func:`hsim.analysis.report.build_report`'s dict (its tables hold exactly these
    figures); tally: the :class:`hsim.analysis.report.ReportTally` of the same pass, made
    with ``plots=True`` (its histograms); manifest: the run's ``run.json``.
    """
    kierki = "by_kind" in rep
    seats = len(rep["strategies"][0]["places"]) if rep["strategies"] else 4
    s = rep["summary"]
    page = Page(f"hsim report: {Path(rep['run']).name}")
    page.fact("run", "run", rep["run"])
    page.fact("rules", "rules", rep["rules"])
    page.fact("scoring", "scoring", rep["scoring"])
    page.fact("players", "players", ", ".join(map(str, rep["players"])))
    page.fact("seed", "seed", rep["seed"])
    page.fact("status", "status", rep["status"])
    page.fact("games", "games", s["games"])
    versions = manifest.get("versions") or {}
    page.fact("hsim_run", "hsim version (run)", versions.get("hsim", "unknown"))
    page.fact("hsim_page", "hsim version (page)", __version__)
    page.fact("command", "command", manifest.get("command") or "unknown")
    for i, warning in enumerate(rep.get("warnings", [])):
        page.fact(f"warning{i}", "warning", warning)

    page.heading(
        "Summary",
        "95% intervals: per-deal rates and mean place clustered by game; win rates and "
        "place shares Wilson."
        + (" Kierki: the highest score wins." if kierki else " Points: lower is better."),
    )
    summary_row = {"what": "all games", **s}
    summary_cols = [
        Column("what", ""),
        Column("games", "games"),
        Column("censored", "censored"),
        Column("game_length", "deals/game", 2),
        Column("final_score", "final score", 2),
        Column("winning_score", "winner's score", 2),
    ]
    if not kierki:
        summary_cols.append(Column("moon_rate", "moons/deal", 5))
    page.table("summary", [summary_row], summary_cols, "what")
    quantiles = [{"q": q, "score": v} for q, v in s["score_quantiles"].items()]
    page.table(
        "score_quantiles", quantiles, [Column("q", "quantile"), Column("score", "final score")], "q"
    )

    metric = "score_per_deal" if kierki else "points_per_deal"
    metric_title = "score per deal" if kierki else "points per deal"
    for label, rows, title in (
        ("strategy", rep["strategies"], "By strategy"),
        ("seat", rep["by_seat"], "By seat"),
        *((("player", rep["by_player"], "By player"),) if "by_player" in rep else ()),
    ):
        suffix = "" if label == "strategy" else f"_by_{label}"
        page.heading(title)
        page.table(
            f"strategies{suffix}" if not suffix else f"by_{label}",
            rows,
            _key_columns(label, kierki, seats),
            label,
        )
        page.chart(f"{metric}{suffix}", interval_chart(rows, label, metric, metric_title))
        page.chart(f"win_rate{suffix}", interval_chart(rows, label, "win_rate", "win rate"))
        page.chart(f"mean_place{suffix}", interval_chart(rows, label, "mean_place", "mean place"))
        page.chart(f"places{suffix}", place_chart(rows, label))
        if not kierki:
            page.chart(
                f"moon_rate{suffix}", interval_chart(rows, label, "moon_rate", "moons per deal")
            )

    if kierki:
        page.heading("By deal kind")
        rows = [{**r, "key": f"{r['strategy']}/{r['kind']}"} for r in rep["by_kind"]]
        page.table(
            "by_kind",
            rows,
            [
                Column("strategy", "strategy"),
                Column("kind", "kind"),
                Column("seat_deals", "seat-deals"),
                Column("score_per_deal", "score/deal"),
            ],
            "key",
        )
        page.chart(
            "score_per_deal_by_kind",
            interval_chart(
                rep["by_kind"], "strategy", "score_per_deal", "score per deal", color="kind"
            ),
        )
    else:
        page.heading("By pass direction")
        rows = [
            {**r, "key": f"{r['strategy']}/{r['pass_direction']}"} for r in rep["by_pass_direction"]
        ]
        page.table(
            "by_pass_direction",
            rows,
            [
                Column("strategy", "strategy"),
                Column("pass_direction", "pass direction"),
                Column("seat_deals", "seat-deals"),
                Column("points_per_deal", "points/deal"),
                Column("moon_rate", "moons/deal", 5),
            ],
            "key",
        )
        page.chart(
            "points_per_deal_by_pass_direction",
            interval_chart(
                rows, "strategy", "points_per_deal", "points per deal", color="pass_direction"
            ),
        )
        page.chart(
            "moon_rate_by_pass_direction",
            interval_chart(rows, "strategy", "moon_rate", "moons per deal", color="pass_direction"),
        )

    page.heading("Distributions", "Games left out when censored by a re-scoring.")
    lengths = histogram_frame(dict(tally.lengths), 1)
    page.chart("game_length", histogram_chart(lengths, "Game length", "deals in the game"))
    width = 25 if kierki else 5
    frames = []
    for name, counts in sorted(tally.final_scores.items()):
        frames.append(histogram_frame(dict(counts), width).assign(strategy=name))
    scores = pd.concat(frames, ignore_index=True) if frames else histogram_frame({}, width)
    page.chart(
        "final_score",
        histogram_chart(
            scores, f"Final scores (bins of {width})", "final game score", color="strategy"
        ),
    )

    if rep.get("score_also"):
        page.heading(
            "Other scorings of the same deals (--score-also)",
            "Winner changed: a game's winner set (co-winners of a tie included) differs "
            "between the played scoring and the other one; 95% Wilson interval.",
        )
        rows = [{**r, "share": r["winner_change"]["share"]} for r in rep["score_also"]]
        page.table(
            "score_also",
            rows,
            [
                Column("scoring", "scoring"),
                Column("winner_change.compared", "games compared"),
                Column("winner_change.changed", "winner changed"),
                Column("winner_change.share", "share changed"),
                Column("game_length.played", "deals/game played", 2),
                Column("game_length.scoring", "deals/game scoring", 2),
                Column("game_length.difference", "difference", 2),
                Column("moon_rate.played", "moons/deal played", 5),
                Column("moon_rate.scoring", "moons/deal scoring", 5),
            ],
            "scoring",
        )
        page.chart("winner_change", interval_chart(rows, "scoring", "share", "winner change rate"))
    return page


def html_report(
    run_dir: str | Path,
    path: str | Path,
    scoring: str | None = None,
    progress: bool = False,
) -> tuple[dict[str, Any], Path]:
    """Write the HTML page of ``hsim report`` for the run in ``run_dir`` to ``path`` and
    return (the report dict, the path), in one pass over the run.

    :raises HtmlUnavailable: the ``html`` extra is missing. :raises PageTargetError:
        ``path`` is a folder, in a missing folder or inside the run folder.
        :raises RulesError, RunFolderError: as :func:`hsim.analysis.report.build_report`.
        :raises OSError: the page could not be written.
    """
    require_html()
    target = check_target(path, run_dir)
    folder = open_run(run_dir)
    rep, tally = report_tally(folder, scoring, plots="games", progress=progress)
    text = report_page(rep, tally, folder.manifest).render()
    return rep, write_page(text, target)


# ------------------------------------------------------------------ the sprt page


def trace_chart(trace: list[tuple[int, Any]], lower: float, upper: float):
    """Return the LLR trace (boards, LLR at each look) as a line with a point per look,
    and the two bounds as dashed lines. An infinite LLR (written "inf") is drawn at twice
    its bound, as the ``--plot`` PNG draws it."""
    # deferred: altair is the optional [html] extra
    import altair as alt

    def clip(v: Any) -> float:
        x = float(v)
        return max(min(x, 2 * upper), 2 * lower)

    frame = pd.DataFrame([{"boards": n, "LLR": clip(v), "value": str(v)} for n, v in trace])
    bounds = pd.DataFrame(
        {"bound": ["accept H1 (upper)", "accept H0 (lower)"], "LLR": [upper, lower]}
    )
    line = (
        alt.Chart(frame)
        .mark_line(point=True)
        .encode(
            x=alt.X("boards:Q", title="boards"),
            y=alt.Y("LLR:Q", title="log-likelihood ratio"),
            tooltip=["boards", alt.Tooltip("value:N", title="LLR")],
        )
    )
    rules = (
        alt.Chart(bounds)
        .mark_rule(strokeDash=[6, 4])
        .encode(
            y="LLR:Q",
            color=alt.Color(
                "bound:N",
                title="bound",
                scale=alt.Scale(
                    domain=["accept H1 (upper)", "accept H0 (lower)"],
                    range=["#2a9d3a", "#c0392b"],
                ),
            ),
            tooltip=["bound", "LLR"],
        )
    )
    return (rules + line).properties(title="LLR after each look", width=620, height=300)


def sprt_page(doc: dict[str, Any], verdict: str, players: str, command: str | None) -> Page:
    """Return the :class:`Page` of an SPRT.

    doc: the test's settings and result, as ``hsim sprt --json`` prints them (candidate,
    baseline, bounds, alpha, beta, seed, the result's fields and its trace) plus rules,
    opponents, design, max_boards and batch; verdict: the verdict in words, as printed;
    players: who plays whom; command: the command line.
    """
    page = Page(f"hsim sprt: {doc['candidate']} against {doc['baseline']}")
    page.provenance(doc["rules"], players, doc["seed"], command)
    page.fact("verdict", "verdict", verdict)
    page.fact("run", "run folder", doc["run_dir"])
    d0, d1 = doc["bounds"]
    settings = {
        "what": "settings",
        "candidate": doc["candidate"],
        "baseline": doc["baseline"],
        "opponents": ", ".join(doc["opponents"]) if doc.get("opponents") else None,
        "design": doc.get("design"),
        "d0": d0,
        "d1": d1,
        "alpha": doc["alpha"],
        "beta": doc["beta"],
        "max_boards": doc.get("max_boards"),
        "batch": doc.get("batch"),
        "seed": doc["seed"],
        "rules": doc["rules"],
    }
    page.heading("Settings")
    page.table(
        "settings",
        [settings],
        [
            Column("what", ""),
            Column("candidate", "candidate"),
            Column("baseline", "baseline"),
            Column("opponents", "opponents"),
            Column("design", "design"),
            Column("d0", "H0: advantage D0"),
            Column("d1", "H1: advantage D1"),
            Column("alpha", "alpha"),
            Column("beta", "beta"),
            Column("max_boards", "max boards"),
            Column("batch", "batch"),
            Column("seed", "seed"),
            Column("rules", "rules"),
        ],
        "what",
    )
    advantage = None
    if doc["advantage"] is not None:
        advantage = {
            "estimate": doc["advantage"],
            "low": doc["advantage_low"],
            "high": doc["advantage_high"],
            "n": doc["boards"],
        }
    result = {**doc, "what": "result", "advantage": advantage}
    page.heading(
        "Result",
        "Advantage: the candidate's mean advantage over the baseline in points per deal "
        "(positive: the candidate did better), with its 95% interval over the boards used.",
    )
    page.table(
        "result",
        [result],
        [
            Column("what", ""),
            Column("verdict", "verdict"),
            Column("status", "status"),
            Column("boards", "boards"),
            Column("deals", "deals"),
            Column("advantage", "advantage (95% interval)"),
            Column("llr", "LLR"),
            Column("lower", "lower bound"),
            Column("upper", "upper bound"),
        ],
        "what",
    )
    if advantage is not None:
        page.chart(
            "advantage",
            interval_chart(
                [{"what": "candidate - baseline", "advantage": advantage}],
                "what",
                "advantage",
                "advantage in points per deal",
                lines={"zero": 0.0, "H0: D0": d0, "H1: D1": d1},
            ),
        )
    page.heading(
        "LLR trace",
        "The log-likelihood ratio of H1 over H0 after every look (every batch of boards, "
        "in board order); the test stops when it crosses a bound.",
    )
    page.chart("llr", trace_chart(doc["trace"], doc["lower"], doc["upper"]))
    page.table(
        "trace",
        [{"boards": n, "llr": v} for n, v in doc["trace"]],
        [Column("boards", "boards"), Column("llr", "LLR")],
        "boards",
    )
    return page


# ------------------------------------------------------------------ the ladder page


def ladder_page(
    rows: list[dict[str, Any]],
    rules: str,
    bots: list[str],
    boards: int,
    seed: int,
    out: str | Path,
    what: str,
    command: str | None,
) -> Page:
    """Return the :class:`Page` of a ladder.

    rows: one dict per rung as :func:`hsim.experiments.ladder.rung_dict` gives it (the
    figures of the printed line); rules: the canonical rules string; bots: the ladder,
    weakest first; what: the score per deal measured, in words (as the ladder's last line
    says it); out: the folder of the rungs' runs; command: the command line.
    """
    page = Page("hsim ladder: " + " < ".join(bots))
    page.provenance(rules, ", ".join(bots), seed, command)
    page.fact("boards", "boards per rung", boards)
    page.fact("score", "measured", what)
    page.fact("out", "run folders", str(out))
    page.heading(
        "Rungs",
        "Each rung plays UPPER against copies of LOWER on the same duplicate boards: UPPER's "
        "advantage in mean score per deal, with its 95% interval over boards. Positive: "
        "UPPER is stronger; a rung holds when the interval is above zero.",
    )
    page.table(
        "rungs",
        rows,
        [
            Column("rung", "rung"),
            Column("upper", "upper"),
            Column("lower", "lower"),
            Column("boards", "boards"),
            Column("deals", "deals"),
            Column("advantage", "advantage (95% interval)"),
            Column("holds", "holds"),
            Column("run_dir", "run folder"),
        ],
        "rung",
    )
    page.chart(
        "advantage",
        interval_chart(
            rows, "rung", "advantage", "advantage per deal", lines={"zero": 0.0}, keep_order=True
        ),
    )
    return page


# ------------------------------------------------------------------ the compare-rules page


def _win_interval(row: dict, side: str) -> dict[str, Any]:
    return {
        "estimate": row[f"win_rate_{side}"],
        "low": row[f"win_rate_{side}_low"],
        "high": row[f"win_rate_{side}_high"],
        "n": row["seat_games"],
    }


def compare_rows(report: dict[str, Any]) -> dict[str, list[dict[str, Any]]]:
    """Return the rows of the compare-rules page's tables, each a figure of ``report``
    (:func:`hsim.experiments.compare_rules.compare_rules`'s dict, as ``--json`` prints
    it) as it is, keyed as the page's rows are: ``rule_sets`` (one per rule set:
    ``set``, ``rules``, ``summary``, ``winner_change``, ``play_changed``),
    ``score_quantiles`` (``set``, ``q5``...``q95``), ``win_rates`` (``key``
    ``SET/STRATEGY``, ``win_rate``: the interval dict; ``flipped``: the share of seat-games
    whose win status flipped against the base, variants only) and ``by_length`` (``key``
    ``SET/LENGTH``, ``share``: the winner-change interval of the base games of that
    length)."""
    sets = [("base", report["base"])] + [
        (f"variant {i}", v) for i, v in enumerate(report["variants"], 1)
    ]
    out: dict[str, list[dict[str, Any]]] = {
        "rule_sets": [],
        "score_quantiles": [],
        "win_rates": [],
        "by_length": [],
    }
    for name, s in sets:
        out["rule_sets"].append(
            {
                "set": name,
                "rules": s["rules"],
                "summary": s["summary"],
                "winner_change": s.get("winner_change"),
                "play_changed": s.get("play_changed"),
            }
        )
        q = {f"q{round(float(k) * 100)}": v for k, v in s["summary"]["score_quantiles"].items()}
        out["score_quantiles"].append({"set": name, **q})
    if report["variants"]:
        for r in report["variants"][0]["by_strategy"]:
            out["win_rates"].append(
                {
                    "key": f"base/{r['strategy']}",
                    "set": "base",
                    "strategy": r["strategy"],
                    "seat_games": r["seat_games"],
                    "win_rate": _win_interval(r, "a"),
                    "flipped": None,
                }
            )
    for name, v in sets[1:]:
        for r in v["by_strategy"]:
            out["win_rates"].append(
                {
                    "key": f"{name}/{r['strategy']}",
                    "set": name,
                    "strategy": r["strategy"],
                    "seat_games": r["seat_games"],
                    "win_rate": _win_interval(r, "b"),
                    "flipped": {
                        "estimate": r["flipped_share"],
                        "low": r["flipped_low"],
                        "high": r["flipped_high"],
                        "n": r["seat_games"],
                    },
                }
            )
        for r in v.get("by_length", []):
            out["by_length"].append(
                {
                    "key": f"{name}/{r['length']}",
                    "set": name,
                    "length": r["length"],
                    "games": r["games"],
                    "changed": r["changed"],
                    "share": {
                        "estimate": r["share"],
                        "low": r["low"],
                        "high": r["high"],
                        "n": r["games"],
                    },
                }
            )
    return out


def _pair(left, right):
    """Two charts side by side (one chart container)."""
    return (left | right) if right is not None else left


def compare_page(report: dict[str, Any], command: str | None) -> Page:
    """Return the :class:`Page` of ``hsim compare-rules``: report is the comparison as
    ``--json`` prints it; command: the command line."""
    kierki = report.get("game") == "kierki"
    rows = compare_rows(report)
    page = Page(f"hsim compare-rules: {report['base']['rules']} and its variants")
    page.provenance(report["base"]["rules"], ", ".join(report["players"]), report["seed"], command)
    page.fact("games", "games per rule set", report["games"])
    for i, v in enumerate(report["variants"], 1):
        page.fact(f"variant{i}", f"variant {i}", f"{v['rules']}  (--variant {v['text']})")
    page.fact("out", "run folders", report["out"])
    page.heading(
        "Rule sets",
        "The same seeded games under each rule set; 95% intervals (t for means, Wilson for "
        f"shares). Winner changed: {report['winner_change_definition']}.",
    )
    cols = [
        Column("set", "rule set"),
        Column("rules", "rules"),
        Column("summary.games", "games"),
        Column("summary.game_length", "deals/game", 2),
        *([] if kierki else [Column("summary.moon_rate", "moons/deal", 4)]),
        Column("summary.final_score", "final score", 2),
        Column("summary.winning_score", "winning score", 2),
        *([] if kierki else [Column("summary.ended_by.max_deals", "ended by max_deals")]),
        Column("winner_change.share", "winner changed vs base", 4),
        Column("winner_change.changed", "games changed"),
        Column("winner_change.compared", "games compared"),
        Column("play_changed.deals", "deals played differently"),
        Column("play_changed.compared", "deals compared"),
    ]
    page.table("rule_sets", rows["rule_sets"], cols, "set")
    charted = [{"set": r["set"], **r["summary"]} for r in rows["rule_sets"]]

    def chart(metric: str, title: str):
        return interval_chart(charted, "set", metric, title, keep_order=True).properties(width=380)

    page.chart(
        "length_and_moons",
        _pair(
            chart("game_length", "deals per game"),
            None if kierki else chart("moon_rate", "moons per deal"),
        ),
    )
    page.chart(
        "scores",
        _pair(chart("final_score", "final score"), chart("winning_score", "winning score")),
    )
    page.table(
        "score_quantiles",
        rows["score_quantiles"],
        [Column("set", "rule set")]
        + [Column(f"q{q}", f"final score q{q}", 1) for q in (5, 25, 50, 75, 95)],
        "set",
    )
    if report["variants"]:
        page.heading("Winners", "Win rates per strategy under each rule set (Wilson intervals).")
        changes = [
            {"set": r["set"], "share": r["winner_change"]["share"]} for r in rows["rule_sets"][1:]
        ]
        page.chart(
            "winners",
            _pair(
                interval_chart(
                    changes, "set", "share", "winner changed vs base", keep_order=True
                ).properties(width=380),
                interval_chart(
                    rows["win_rates"], "strategy", "win_rate", "win rate", color="set"
                ).properties(width=380),
            ),
        )
        page.table(
            "win_rates",
            rows["win_rates"],
            [
                Column("set", "rule set"),
                Column("strategy", "strategy"),
                Column("seat_games", "seat-games"),
                Column("win_rate", "win rate", 4),
                Column("flipped", "win status flipped vs base", 4),
            ],
            "key",
        )
    if rows["by_length"] and not kierki:  # a Kierki game always plays the same deals
        page.heading("Winner changes by the base game's length (deals)")
        page.table(
            "by_length",
            rows["by_length"],
            [
                Column("set", "rule set"),
                Column("length", "deals in the base game"),
                Column("games", "games"),
                Column("changed", "winner changed"),
                Column("share", "share changed", 3),
            ],
            "key",
        )
        page.chart(
            "by_length",
            interval_chart(
                rows["by_length"],
                "length",
                "share",
                "winner changed by game length",
                color="set",
                keep_order=True,
            ),
        )
    return page


def html_page(page: Page, path: str | Path) -> Path:
    """Render ``page`` and write it to ``path`` atomically; return the path.

    :raises HtmlUnavailable: the ``html`` extra is missing. :raises OSError: the page
        could not be written.
    """
    return write_page(page.render(), path)
