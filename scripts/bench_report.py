"""CPU-seconds of the report's aggregation over a run folder, against a reference engine.

Measures, each in a fresh child process (imports and warm-up left out, CPU of the child
and its threads counted with ``time.process_time``):

- ``report``: :func:`hsim.analysis.report.build_report` of the run;
- ``report --scoring``: the same re-scored (``--scoring``, default ``omnibus=true``);
- ``compare-rules``: :func:`hsim.experiments.compare_rules.compare_runs` of the run
  against ``--variant-run`` (a run of the same seed and players under other rules),
  when given;
- ``atlas``: what ``hsim atlas`` reads of those two runs, the comparison and each run's
  report and spreads (:func:`hsim.experiments.compare_rules.compare_and_report`; with
  older code, the comparison, then each run's report and spread);
- ``duckdb`` and ``pyarrow``: a reference, one grouped aggregation of the same deals
  (seat-deals, points and moons per strategy) in DuckDB (if installed) and in
  pyarrow.compute, single-threaded as the report is.

Then prints each figure's ratio to the references. Speed is measured here, never in
timed tests. The machine is shared: run it twice, and compare figures of one sitting.

    python scripts/bench_report.py /tmp/speed-run --variant-run /tmp/speed-run-omnibus
    PYTHONPATH=/path/to/old/checkout python scripts/bench_report.py RUN   # the old code
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys

CHILD = r"""
import json, sys, time
args = json.loads(sys.argv[1])
task, run = args["task"], args["run"]
if task == "report":
    from hsim.analysis.report import build_report
    call = lambda: build_report(run, args.get("scoring"))
elif task == "compare-rules":
    from hsim.analysis.scan import open_run
    from hsim.experiments.compare_rules import compare_runs
    rules = [open_run(p).rules for p in (run, args["variant"])]
    call = lambda: compare_runs(run, [args["variant"]], rules[0], [rules[1]])
elif task == "atlas":
    from hsim.analysis.scan import open_run
    from hsim.experiments import compare_rules
    rules = [open_run(p).rules for p in (run, args["variant"])]
    if hasattr(compare_rules, "compare_and_report"):  # one pass over both runs
        both = (run, [args["variant"]], rules[0], rules[1:])
        call = lambda: compare_rules.compare_and_report(*both)
    else:  # older code: the comparison, then each run's report and spread again
        from hsim.analysis.report import report_run
        from hsim.experiments.atlas import spread
        def call():
            compare_rules.compare_runs(run, [args["variant"]], rules[0], [rules[1]])
            for r in (run, args["variant"]):
                report_run(r)
                spread(r)
elif task == "duckdb":
    import duckdb
    con = duckdb.connect()
    con.execute("SET threads=1")
    sql = (
        "SELECT strategy, count(*), sum(points), sum(moon::INT) FROM read_parquet(?) "
        "WHERE NOT after_end GROUP BY strategy"
    )
    call = lambda: con.execute(sql, [run + "/deals/*.parquet"]).fetchall()
elif task == "pyarrow":
    import pyarrow.compute as pc
    import pyarrow.dataset as ds
    def call():
        dataset = ds.dataset(run + "/deals", format="parquet")
        table = dataset.to_table(
            columns=["strategy", "points", "moon", "after_end"], use_threads=False
        )
        table = table.filter(pc.invert(table["after_end"]))
        table = table.append_column("moons", table["moon"].cast("int8"))
        return table.group_by("strategy", use_threads=False).aggregate(
            [("points", "count"), ("points", "sum"), ("moons", "sum")]
        )
start = time.process_time()
call()
print(time.process_time() - start)
"""


def measure(task: str, run: str, **extra) -> float:
    """Return the CPU-seconds of one task in a fresh child process."""
    args = json.dumps({"task": task, "run": run, **extra})
    done = subprocess.run(
        [sys.executable, "-c", CHILD, args], capture_output=True, text=True, check=False
    )
    if done.returncode:
        raise SystemExit(f"{task} failed:\n{done.stderr[-2000:]}")
    return float(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("run", help="a run folder (hsim tournament --out)")
    parser.add_argument("--scoring", default="omnibus=true", help="the re-scoring to time")
    parser.add_argument("--variant-run", help="a run of the same seeds under other rules")
    parser.add_argument("--repeat", type=int, default=1, help="take the least of N runs")
    ns = parser.parse_args()

    def best(task, **extra):
        return min(measure(task, ns.run, **extra) for _ in range(ns.repeat))

    figures = {
        "report": best("report"),
        f"report --scoring {ns.scoring}": best("report", scoring=ns.scoring),
    }
    if ns.variant_run:
        figures["compare-rules"] = best("compare-rules", variant=ns.variant_run)
        figures["atlas (two runs)"] = best("atlas", variant=ns.variant_run)
    references = {}
    try:
        import duckdb  # noqa: F401  # deferred: DuckDB is only this benchmark's reference
    except ImportError:
        print("(duckdb is not installed: its reference is left out)")
    else:
        references["duckdb"] = best("duckdb")
    references["pyarrow"] = best("pyarrow")
    print(f"{'CPU-seconds':<40} {'':>8} " + " ".join(f"{'x ' + r:>10}" for r in references))
    for name, cpu in {**figures, **references}.items():
        ratios = " ".join(f"{cpu / ref:>10.1f}" for ref in references.values())
        print(f"{name:<40} {cpu:>8.2f} {ratios}")


if __name__ == "__main__":
    main()
