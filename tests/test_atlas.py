"""hsim.experiments.atlas and ``hsim atlas``: figures against pandas on small runs, resuming."""

from __future__ import annotations

import json
import re

import pandas as pd
import pytest
from click.testing import CliRunner

from hsim.cli import main
from hsim.errors import ConfigError
from hsim.experiments.atlas import (
    ATLAS_FILE,
    MARKDOWN_FILE,
    TABLE_FILE,
    AtlasConfig,
    option_variants,
    run_atlas,
)
from hsim.experiments.compare_rules import parse_variant
from hsim.model.rules import RulesError, parse_rules

CLASSIC = parse_rules("classic")
GAMES = 60


def config(variants=("omnibus=true", "moon=new_moon"), bots=("random", "duck"), games=GAMES):
    return AtlasConfig(
        CLASSIC, tuple(parse_variant(v, CLASSIC) for v in variants), tuple(bots), games, seed=5
    )


@pytest.fixture(scope="module")
def atlas(tmp_path_factory):
    out = tmp_path_factory.mktemp("atlas") / "a"
    return out, run_atlas(config(), out)


def _runs(out, cell):
    deals = pd.read_parquet(out / cell["run_dir"] / "deals")
    games = pd.read_parquet(out / cell["run_dir"] / "games")
    return deals, games


def test_every_figure_equals_pandas_on_the_run_folders(atlas):
    out, result = atlas
    assert len(result["cells"]) == 2 * 3
    for cell in result["cells"]:
        deals, games = _runs(out, cell)
        per_deal = deals.groupby(["game", "deal"])
        assert cell["deals"] == per_deal.ngroups
        assert cell["games"] == games.game.nunique() == GAMES
        assert cell["moon_rate"]["estimate"] == pytest.approx(
            per_deal.moon.any().sum() / per_deal.ngroups
        )
        assert cell["game_length"]["estimate"] == pytest.approx(
            games.groupby("game").deals.first().mean()
        )
        score = games.groupby("game").score
        assert cell["spread"]["estimate"] == pytest.approx((score.max() - score.min()).mean())
        assert cell["spread"]["n"] == GAMES
        for row in cell["by_seat"]:
            mine = deals[deals.seat == row["seat"]]
            assert row["score_per_deal"]["estimate"] == pytest.approx(mine.deal_score.mean())
        for row in cell["by_pass_direction"]:
            mine = deals[deals.pass_direction == row["pass_direction"]]
            assert row["moon_rate"]["estimate"] == pytest.approx(mine.moon.mean())
        for figure in ("moon_rate", "game_length", "spread"):
            iv = cell[figure]
            assert iv["low"] <= iv["estimate"] <= iv["high"]


def _winners(games: pd.DataFrame) -> pd.Series:
    return games[games.winner].groupby("game").seat.apply(frozenset)


def test_winner_change_is_the_share_of_games_whose_winner_set_differs(atlas):
    out, result = atlas
    for bot in ("random", "duck"):
        cells = [c for c in result["cells"] if c["bot"] == bot]
        assert cells[0]["base"] and cells[0]["winner_change"] is None
        base = _winners(_runs(out, cells[0])[1])
        for cell in cells[1:]:
            other = _winners(_runs(out, cell)[1])
            share = (base != other.reindex(base.index)).mean()
            assert cell["winner_change"]["estimate"] == pytest.approx(share)
    omnibus = [c for c in result["cells"] if c["rules"] == "classic(omnibus=true)"]
    assert all(c["winner_change"]["estimate"] > 0 for c in omnibus)


def test_the_table_the_markdown_and_the_json_agree(atlas):
    out, result = atlas
    assert json.loads((out / ATLAS_FILE).read_text())["cells"] == result["cells"]
    table = pd.read_parquet(out / TABLE_FILE)
    for cell in result["cells"]:
        mine = table[(table.bot == cell["bot"]) & (table.rules == cell["rules"])]
        moon = mine[(mine.figure == "moon_rate") & (mine.key == "")]
        assert moon.estimate.item() == cell["moon_rate"]["estimate"]
        seats = mine[mine.figure == "score_per_deal"]
        assert list(seats.key) == [f"seat {s}" for s in range(4)]
    text = (out / MARKDOWN_FILE).read_text()
    assert "### random" in text and "### duck" in text
    assert "`classic(moon=new_moon)`" in text and "`classic` (base)" in text


def test_running_again_resumes_and_plays_nothing_twice(tmp_path):
    out = tmp_path / "a"
    first = run_atlas(config(variants=("omnibus=true",), bots=("random",)), out)
    part = next((out / "01-random" / "variant-1" / "deals").glob("part-*.parquet"))
    stamp = part.stat().st_mtime_ns
    again = run_atlas(config(variants=("omnibus=true",), bots=("random",)), out)
    assert part.stat().st_mtime_ns == stamp and again["cells"] == first["cells"]
    # a run that lost a part (as after a kill) is completed with the same games
    part.unlink()
    healed = run_atlas(config(variants=("omnibus=true",), bots=("random",)), out)
    assert healed["cells"] == first["cells"]


def test_another_atlas_is_refused_unless_overwrite(tmp_path):
    out = tmp_path / "a"
    run_atlas(config(variants=("omnibus=true", "moon=new_moon"), bots=("random",)), out)
    other = config(variants=("omnibus=true",), bots=("random",))
    with pytest.raises(ConfigError, match="other settings"):
        run_atlas(other, out)
    run_atlas(other, out, overwrite=True)
    assert not (out / "01-random" / "variant-2").exists()
    (tmp_path / "b").mkdir()
    (tmp_path / "b" / "notes.txt").write_text("mine")
    with pytest.raises(ConfigError, match="does not write .notes.txt"):
        run_atlas(other, tmp_path / "b", overwrite=True)
    assert (tmp_path / "b" / "notes.txt").read_text() == "mine"


def test_a_damaged_atlas_file_is_replaced_only_with_overwrite(tmp_path):
    out = tmp_path / "a"
    cfg = config(variants=("omnibus=true",), bots=("random",), games=20)
    first = run_atlas(cfg, out)
    (out / ATLAS_FILE).write_text('{"settings": ')  # cut short, as by a full disk
    with pytest.raises(ConfigError, match="missing or damaged; give --overwrite"):
        run_atlas(cfg, out)
    assert run_atlas(cfg, out, overwrite=True)["cells"] == first["cells"]
    assert json.loads((out / ATLAS_FILE).read_text())["status"] == "complete"


def test_an_interrupted_atlas_says_so_in_its_file(tmp_path, monkeypatch):
    from hsim.experiments import atlas as at

    def stop(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(at, "measure", stop)
    out = tmp_path / "a"
    with pytest.raises(at.AtlasStopped, match="run the same command again") as info:
        run_atlas(config(variants=("omnibus=true",), bots=("random",), games=20), out)
    assert info.value.exit_code == 130
    assert json.loads((out / ATLAS_FILE).read_text())["status"] == "interrupted"


def test_sigterm_between_two_runs_stops_the_atlas_as_ctrl_c_does(tmp_path, monkeypatch):
    # between two runs no run's stop handlers are installed: SIGTERM's default would end
    # the process with atlas.json saying "running" and nothing said
    import os
    import signal

    from hsim.experiments import atlas as at

    played = []
    play = at._play
    handler = signal.getsignal(signal.SIGTERM)

    def play_then_sigterm(*args, **kwargs):
        play(*args, **kwargs)
        played.append(args[1])
        os.kill(os.getpid(), signal.SIGTERM)  # after the first run, before the second

    monkeypatch.setattr(at, "_play", play_then_sigterm)
    out = tmp_path / "a"
    with pytest.raises(at.AtlasStopped, match="run the same command again") as info:
        run_atlas(config(variants=("omnibus=true",), bots=("random",), games=20), out)
    assert info.value.exit_code == 128 + signal.SIGTERM
    assert len(played) == 1
    assert json.loads((out / ATLAS_FILE).read_text())["status"] == "interrupted"
    assert signal.getsignal(signal.SIGTERM) is handler  # put back
    monkeypatch.setattr(at, "_play", play)
    assert run_atlas(config(variants=("omnibus=true",), bots=("random",), games=20), out)


def test_a_stopped_atlas_says_interrupted_not_error(tmp_path, monkeypatch):
    from hsim.experiments import atlas as at

    def stop(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(at, "measure", stop)
    result = CliRunner().invoke(main, [
        "atlas", "--variant", "omnibus=true", "--bots", "random", "--games", "20",
        "--no-progress", "--out", str(tmp_path / "a")])  # fmt: skip
    assert result.exit_code == 130, result.output
    assert result.output.splitlines()[-1].startswith("interrupted while computing the figures")
    assert "Error" not in result.output


def test_too_few_games_are_refused():
    with pytest.raises(ConfigError, match="at least 20 games"):
        config(games=19).validate()


def test_option_variants_are_every_effective_other_value():
    texts = option_variants(CLASSIC)
    assert "omnibus=true" in texts and "moon=new_moon" in texts
    assert "jack_in_moon_deal=true" not in texts  # no effect without omnibus
    variants = [parse_variant(t, CLASSIC) for t in texts]
    assert len({v.rules for v in variants}) == len(texts)
    kierki = option_variants(parse_rules("kierki4"))
    assert kierki and all(parse_variant(t, parse_rules("kierki4")) for t in kierki)


def test_kierki_atlas_has_no_moons_and_no_pass_directions(tmp_path):
    base = parse_rules("kierki4")
    cfg = AtlasConfig(base, (parse_variant("must_trump=true", base),), ("random",), 20, seed=2)
    result = run_atlas(cfg, tmp_path / "k")
    for cell in result["cells"]:
        assert cell["moon_rate"] is None and cell["by_pass_direction"] == []
        assert cell["deals"] == 20 * 11


def _cli(*args):
    return CliRunner().invoke(main, ["atlas", "--no-progress", *args])


def test_cli_prints_the_tables(tmp_path):
    r = _cli("--variant", "omnibus=true", "--bots", "random", "--games", "20", "--out",
             str(tmp_path / "a"))  # fmt: skip
    assert r.exit_code == 0, r.output
    assert "| `classic(omnibus=true)` |" in r.stdout and "### random" in r.stdout


def test_cli_deals_sizes_the_games_from_a_pilot(tmp_path):
    r = _cli("--variant", "omnibus=true", "--bots", "random", "--deals", "500", "--out",
             str(tmp_path / "a"), "--json")  # fmt: skip
    assert r.exit_code == 0, r.output
    doc = json.loads(r.stdout)
    base = doc["cells"][0]
    assert 400 <= base["deals"] <= 650  # about 500: a pilot's mean game length sizes it
    r = _cli("--variant", "omnibus=true", "--bots", "random", "--deals", "2", "--out",
             str(tmp_path / "b"))  # fmt: skip
    assert r.exit_code == 0, r.output
    said = re.search(r"(\d+) games per rule set and bot: about ([\d,]+) deals", r.stderr)
    assert said and int(said[1]) == 20  # at least 20 games, and says how many deals that is
    played = json.loads((tmp_path / "b" / ATLAS_FILE).read_text())["cells"][0]["deals"]
    assert abs(int(said[2].replace(",", "")) - played) < 0.3 * played


@pytest.mark.parametrize(
    "args, message",
    [
        (["--variant", "omnibus=true", "--deals", "10", "--games", "20"], "not both"),
        (["--variant", "no_such=1"], "no_such"),
        (["--variant", "omnibus=false"], "same rule set"),
        (["--variant", "omnibus=true", "--bots", "nobody"], "nobody"),
        (["--variant", "omnibus=true", "--variant", "omnibus=true"], "same rule set"),
    ],
)
def test_cli_bad_input_exits_2(tmp_path, args, message):
    r = (
        _cli(*args, "--games", "20", "--out", str(tmp_path / "a"))
        if "--deals" not in args
        else _cli(*args, "--out", str(tmp_path / "a"))
    )
    assert r.exit_code == 2, r.output
    assert message in r.output and "Traceback" not in r.output
    assert not (tmp_path / "a").exists()


def test_parse_variant_refuses_the_base():
    with pytest.raises(RulesError):
        parse_variant("omnibus=false", CLASSIC)
