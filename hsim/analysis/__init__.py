"""Statistics over run folders (pandas); never imports the engine's internals.

The pandas API of rule-variant analysis (columns and dtypes in each docstring):

- :func:`load_run` a run folder as frames (:class:`Run`);
- :func:`rescore_run`, :func:`rescore_frames` recorded deals scored under other scoring
  options with the engine's own kernels, censored games marked (:class:`Rescoring`);
- :func:`compare_games`, :func:`winner_changes`, :func:`winner_change` winner changes
  between two scorings or two runs of the same seeds, with a Wilson interval
  (:class:`WinnerChange`); :func:`winner_change_by_strategy`,
  :func:`winner_change_by_length` breakdowns;
- :func:`games_summary`, :func:`moon_rate` game length, scores, moons with intervals.

``hsim.analysis.report`` (per-strategy report, charts) and ``hsim.experiments.compare_rules``
(play a base and variants) build on these; ``hsim.analysis.stats`` holds the intervals.

Runs larger than memory: :func:`load_run` holds a run's frames in memory; the report and
compare-rules instead open a run with ``hsim.analysis.scan.open_run`` (the one place a
run folder is opened for analysis), read it in batches of whole games
(``RunFolder.batches``) and add them into exact running sums (``hsim.analysis.tally``,
and the ``SummaryTally`` / ``WinnerTally`` behind :func:`games_summary` and
:func:`winner_change`), so their figures are those of the frames in memory.
"""

__all__ = [
    "PLAY_OPTIONS",
    "SCORING_OPTIONS",
    "DealFacts",
    "Rescoring",
    "Run",
    "RunFolderError",
    "WinnerChange",
    "as_rules",
    "compare_games",
    "deal_facts",
    "games_summary",
    "load_run",
    "moon_rate",
    "rescore_frames",
    "rescore_run",
    "winner_change",
    "winner_change_by_length",
    "winner_change_by_strategy",
    "winner_changes",
]


def __getattr__(name):
    # Lazy: ``hsim.cli.analysis`` imports this package, which must not load pandas.
    if name in __all__:
        # deferred: `import hsim.analysis` stays light; each name loads on first use
        from hsim.analysis import frames

        return getattr(frames, name)
    raise AttributeError(f"module 'hsim.analysis' has no attribute {name!r}")
