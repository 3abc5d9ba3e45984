"""Commands that play runs and judge them: the ladder of bots
(:mod:`hsim.experiments.ladder`), the strength gate (:mod:`hsim.experiments.sprt`) and
the comparison of rule variants (:mod:`hsim.experiments.compare_rules`)."""
