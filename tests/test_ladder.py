"""The strength ladder on duplicate deals."""

import pandas as pd
import pytest
from click.testing import CliRunner

from hsim.cli import main
from hsim.ladder import board_advantages


def test_board_advantages_by_hand():
    deals = pd.DataFrame(
        {
            "board": [0] * 8 + [1] * 4,
            "player": [0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3],
            "deal_score": [2, 6, 6, 6, 0, 10, 4, 4, 26, 0, 0, 0],
        }
    )
    # board 0: upper 1 point a deal, the others (6+6+6+10+4+4)/6 = 6 -> +5; board 1: -26.
    assert board_advantages(deals).tolist() == [5.0, -26.0]
    # A moon: 26 raw points for the shooter, but it scores 0 and the others 26.
    moon = deals.assign(points=deals.deal_score, deal_score=[0, 26, 26, 26] * 3)
    assert board_advantages(moon, column="points").tolist() == [5.0, -26.0]
    assert board_advantages(moon).tolist() == [26.0, 26.0]


def test_ladder_holds_and_fails_as_it_should(tmp_path):
    runner = CliRunner()
    ok = runner.invoke(
        main,
        [
            "ladder",
            "--bots",
            "random,lowcard",
            "--boards",
            "200",
            "--out",
            str(tmp_path / "a"),
            "--workers",
            "1",
            "--check",
            "--no-progress",
        ],
    )
    assert ok.exit_code == 0, ok.output
    line = next(x for x in ok.output.splitlines() if x.startswith("lowcard over 3 x random"))
    assert line.endswith("yes")
    advantage = float(line.split()[7])
    assert advantage > 1  # lowcard takes far fewer points than random
    bad = runner.invoke(
        main,
        [
            "ladder",
            "--bots",
            "lowcard,random",
            "--boards",
            "200",
            "--out",
            str(tmp_path / "b"),
            "--workers",
            "1",
            "--check",
            "--no-progress",
        ],
    )
    assert bad.exit_code == 1 and "does not hold" in bad.output
    assert "NO" in bad.output


@pytest.mark.parametrize("bots", ["random", "random,(x"])
def test_bad_ladders(tmp_path, bots):
    r = CliRunner().invoke(main, ["ladder", "--bots", bots, "--out", str(tmp_path)])
    assert r.exit_code != 0 and "Traceback" not in r.output
