"""A damaged or edited record of a run (run.json's settings, a journal entry, a dataset
folder, a part damaged inside) is never taken for data: resume refuses or plays the
chunk again, verify names it, report refuses it (hsim.runner.manifest, .resume, .verify).
"""

import json
import shutil

import pytest
from click.testing import CliRunner

from hsim.cli import main
from hsim.model.rules import Rules
from hsim.runner.config import RunConfig
from hsim.runner.manifest import JOURNAL, SETTINGS_DIGEST, read_manifest, settings_digest
from hsim.runner.resume import resume_run
from hsim.runner.run import RunError, run_tournament
from hsim.runner.verify import verify_run
from tests.test_resume import _assert_same

PLAYERS = ("random", "lowcard", "random", "lowcard")
GAMES, CHUNK, SEED = 400, 50, 5


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    out = tmp_path_factory.mktemp("ref") / "run"
    run_tournament(RunConfig(Rules(), PLAYERS, GAMES, SEED, chunk_size=CHUNK), out, workers=1,
                   progress=False)  # fmt: skip
    return out


@pytest.fixture
def run(tmp_path, reference):
    copy = tmp_path / "run"
    shutil.copytree(reference, copy)
    return copy


def _files(run_dir):
    return {
        p.relative_to(run_dir): p.read_bytes() for p in sorted(run_dir.rglob("*")) if p.is_file()
    }


def _edit(run_dir, **settings):
    path = run_dir / "run.json"
    text = path.read_text()
    for name, (old, new) in settings.items():
        assert f'"{name}": {old},' in text
        text = text.replace(f'"{name}": {old},', f'"{name}": {new},')
    path.write_text(text)


def test_run_json_holds_the_digest_of_its_settings(reference):
    manifest = read_manifest(reference)
    assert manifest[SETTINGS_DIGEST] == settings_digest(manifest)
    assert settings_digest({**manifest, "seed": SEED + 1}) != manifest[SETTINGS_DIGEST]


@pytest.mark.parametrize(
    "edit",
    [{"seed": (SEED, SEED - 1)}, {"games": (GAMES, GAMES // 2)}, {"chunk_size": (CHUNK, 25)}],
    ids=["seed", "games", "chunk_size"],
)
def test_an_edited_setting_is_refused_by_resume_verify_and_report(run, edit):
    # A one-digit change made a resume play another run's games into this folder (seed),
    # delete parts (games, chunk_size), and verify pass.
    _edit(run, **edit)
    before = _files(run)
    with pytest.raises(RunError, match="damaged or was edited.*settings_sha256"):
        resume_run(run, workers=1, progress=False)
    assert _files(run) == before  # nothing deleted, nothing played
    check = verify_run(run)
    assert not check.ok and any("damaged or was edited" in p for p in check.damaged)
    result = CliRunner().invoke(main, ["report", str(run)])
    assert result.exit_code == 1 and "damaged or was edited" in result.output
    assert "Traceback" not in result.output


def test_a_damaged_journal_entry_is_played_again_not_believed(run, reference):
    # An unverified entry's sums went into the resume's summary; its row count made verify
    # and resume disagree (verify: damaged; resume: nothing to do).
    manifest = read_manifest(run)
    manifest["status"] = "interrupted"
    parts = manifest.pop("parts")
    parts[1]["sums"][0][0] += 80000
    parts[2]["deals"]["rows"] += 1
    (run / "run.json").write_text(json.dumps(manifest, indent=2))
    (run / JOURNAL).write_text("".join(json.dumps(p) + "\n" for p in parts))
    check = verify_run(run)
    assert not check.ok
    assert sum("record of games" in p and "is damaged" in p for p in check.damaged) == 2
    result = resume_run(run, workers=1, progress=False)
    assert result.games_played == 2 * CHUNK
    _assert_same(reference, run)
    expected = resume_run(reference, workers=1, progress=False).summary  # nothing to do
    assert result.summary == expected
    assert verify_run(run).ok


@pytest.mark.parametrize("lost", ["deals", "games"])
def test_a_lost_dataset_folder_is_played_again(run, reference, lost):
    # Resume failed with FileNotFoundError, after deleting the other dataset's parts.
    shutil.rmtree(run / lost)
    manifest = read_manifest(run)
    manifest["status"] = "interrupted"
    (run / "run.json").write_text(json.dumps(manifest, indent=2))
    result = resume_run(run, workers=1, progress=False)
    assert result.status == "complete" and result.games_played == GAMES
    _assert_same(reference, run)
    assert verify_run(run).ok


def test_report_refuses_a_part_damaged_inside_with_its_size_unchanged(run):
    # Footers and sizes were all report checked, and it printed other numbers.
    part = run / read_manifest(run)["parts"][3]["deals"]["file"]
    data = bytearray(part.read_bytes())
    data[len(data) // 2] ^= 0x04
    part.write_bytes(bytes(data))
    result = CliRunner().invoke(main, ["report", str(run)])
    assert result.exit_code == 1, result.output
    assert "sha256 differs" in result.output and "hsim resume" in result.output


@pytest.mark.parametrize("status", ["complete", "interrupted"])
def test_a_removed_settings_checksum_is_refused_too(run, status):
    # Deleting settings_sha256 turned the check off, and a resume then mixed two seeds.
    manifest = read_manifest(run)
    del manifest[SETTINGS_DIGEST]
    manifest["seed"] = SEED + 3
    if status == "interrupted":  # the parts in the journal only, as a killed run has them
        manifest["status"] = "interrupted"
        parts = manifest.pop("parts")[:3]
        (run / JOURNAL).write_text("".join(json.dumps(p) + "\n" for p in parts))
    (run / "run.json").write_text(json.dumps(manifest, indent=2))
    before = _files(run)
    with pytest.raises(RunError, match="damaged or was edited"):
        resume_run(run, workers=1, progress=False)
    assert _files(run) == before
    assert not verify_run(run).ok
    result = CliRunner().invoke(main, ["report", str(run), "--allow-partial"])
    assert result.exit_code == 1 and "damaged or was edited" in result.output


def test_an_entry_whose_checksum_was_removed_is_not_believed(run, reference):
    manifest = read_manifest(run)
    manifest["status"] = "interrupted"
    parts = manifest.pop("parts")
    del parts[3]["entry_sha256"]
    parts[3]["sums"][0][0] += 1000
    (run / "run.json").write_text(json.dumps(manifest, indent=2))
    (run / JOURNAL).write_text("".join(json.dumps(p) + "\n" for p in parts))
    assert any("record of games 150..200" in p for p in verify_run(run).damaged)
    result = resume_run(run, workers=1, progress=False)
    assert result.games_played == CHUNK
    assert result.summary == resume_run(reference, workers=1, progress=False).summary
    _assert_same(reference, run)
