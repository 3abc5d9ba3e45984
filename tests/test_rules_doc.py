"""docs/rules.md against the code: options, anchors, citations, Kierki and preset tables.

The options are read from :class:`hsim.model.rules.Rules` at run time, so an option added to
the dataclass without a docs/rules.md entry (or documented but missing from the code)
fails here; so do a documented default or value that the code does not have, a
``docs/rules.md A1.5`` citation or ``rules.md#a1-5`` link anywhere in the repository
that names no anchor, and a Kierki deal-order, Kierki value, pass-direction or preset
table that disagrees with the engine.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from hsim.engine import hearts as H
from hsim.engine import kierki as K
from hsim.engine.layout import PASS_DIRECTIONS
from hsim.model.rules import (
    BOOL,
    HEARTS_OPTIONS,
    KIERKI_KINDS,
    KIERKI_OPTIONS,
    POINT_TABLES,
    PRESETS,
    RULE_FIELDS,
    RULE_NAMES,
    Rules,
    RulesError,
    describe_options,
    differences,
    format_value,
    parse_value,
)

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "rules.md"
TEXT = DOC.read_text(encoding="utf-8")
LINES = TEXT.splitlines()

ANCHOR = re.compile(r'<a id="([^"]+)"></a>')
#: The stable section numbers: parts, A1.1-A1.8, A2.1-A2.5, A3, A4, B1-B5, B2.1-B2.7, C.
SECTIONS = (
    ["A", "A1"]
    + [f"A1.{i}" for i in range(1, 9)]
    + ["A2"]
    + [f"A2.{i}" for i in range(1, 6)]
    + ["A3", "A4", "B", "B1", "B2"]
    + [f"B2.{i}" for i in range(1, 8)]
    + ["B3", "B4", "B5", "B6", "C"]
)
SECTION_ANCHORS = {s.lower().replace(".", "-") for s in SECTIONS}


def anchor_of(section: str) -> str:
    """Return the anchor of a section number: ``A1.5`` -> ``a1-5``, ``B`` -> ``b``."""
    return section.strip().lower().replace(".", "-")


def anchors(text: str = TEXT) -> list[str]:
    return ANCHOR.findall(text)


# --- the option index and the option entries -----------------------------------------

INDEX_ROW = re.compile(
    r"^\| \[`(?P<name>\w+)`\]\(#opt-(?P<link>\w+)\) \| (?P<game>\w+) \| `(?P<default>[^`]+)` "
    r"\| (?P<values>.+?) \| \[(?P<section>[^\]]+)\]\(#(?P<target>[\w-]+)\) \|$"
)
ENTRY = re.compile(
    r"^\*\*Option `(?P<name>\w+)`\*\* \((?P<game>\w+)\) — default `(?P<default>[^`]+)`; "
    r"values (?P<values>.+)\.$"
)


def index_rows() -> dict[str, re.Match]:
    """Return the option index's rows by option name (each name once)."""
    start = LINES.index("## Option index")
    rows: dict[str, re.Match] = {}
    for line in LINES[start + 1 :]:
        if line.startswith("#"):
            break
        m = INDEX_ROW.match(line)
        if m:
            assert m["name"] not in rows, f"{m['name']} is listed twice in the option index"
            rows[m["name"]] = m
        elif line.startswith("| [`"):
            pytest.fail(f"option index row not in the expected form: {line!r}")
    return rows


def option_anchors() -> list[str]:
    return [a[len("opt-") :] for a in anchors() if a.startswith("opt-")]


def entries() -> dict[str, re.Match]:
    """Return each option entry's first line (the line after its anchor), by option name."""
    out = {}
    for i, line in enumerate(LINES):
        m = ANCHOR.fullmatch(line.strip())
        if m and m[1].startswith("opt-"):
            name = m[1][len("opt-") :]
            entry = ENTRY.match(LINES[i + 1]) if i + 1 < len(LINES) else None
            assert entry, f"opt-{name}: the next line must be **Option `{name}`** (...) — ..."
            assert entry["name"] == name, f"opt-{name} is followed by the entry of {entry['name']}"
            out[name] = entry
    return out


def game_of(name: str) -> str:
    if name in HEARTS_OPTIONS:
        return "Hearts"
    if name in KIERKI_OPTIONS:
        return "Kierki"
    return "both"


def check_values(name: str, text: str) -> None:
    """Assert that the documented values ``text`` are exactly the values ``name`` takes."""
    tokens = re.findall(r"`([^`]+)`", text)
    choices = RULE_FIELDS[name].metadata["choices"]
    if choices is None:  # a count: "a positive integer", maybe with extra values
        assert "positive integer" in text, f"{name}: values should say 'a positive integer'"
        parse_value(name, "1")
        for token in tokens:
            parse_value(name, token)  # every extra value listed is accepted
        zero_taken = True
        try:
            parse_value(name, "0")
        except RulesError:
            zero_taken = False
        assert zero_taken == ("0" in tokens), f"{name}: whether 0 is allowed is documented wrong"
    else:
        expected = [format_value(c) for c in choices]
        assert sorted(tokens) == sorted(expected), f"{name}: values {tokens}, code {expected}"
        for token in tokens:
            parse_value(name, token)
        if choices is BOOL:
            assert tokens == ["true", "false"], f"{name}: write the values `true`, `false`"


def test_every_option_of_rules_is_documented():
    names = set(RULE_NAMES)
    missing_index = sorted(names - set(index_rows()))
    missing_anchor = sorted(names - set(option_anchors()))
    assert not missing_index, f"options of Rules missing from the option index: {missing_index}"
    assert not missing_anchor, f"options of Rules without an opt- anchor: {missing_anchor}"


def test_every_documented_option_exists_in_rules():
    names = set(RULE_NAMES)
    extra_index = sorted(set(index_rows()) - names)
    extra_anchor = sorted(set(option_anchors()) - names)
    assert not extra_index, f"documented options that Rules does not have: {extra_index}"
    assert not extra_anchor, f"opt- anchors of options Rules does not have: {extra_anchor}"


def test_anchors_are_unique():
    seen = anchors()
    dupes = sorted({a for a in seen if seen.count(a) > 1})
    assert not dupes, f"anchors defined more than once: {dupes}"


@pytest.mark.parametrize("row", describe_options(), ids=lambda r: r["name"])
def test_documented_default_values_game_and_section_match_the_code(row):
    name = row["name"]
    index = index_rows().get(name)
    entry = entries().get(name)
    assert index is not None and entry is not None, f"{name} is not documented"
    assert index["link"] == name, f"index row {name} links to opt-{index['link']}"
    for where, m in (("index", index), ("entry", entry)):
        assert m["default"] == row["default"], f"{name} ({where}): default {m['default']}"
        assert m["game"] == game_of(name), f"{name} ({where}): game {m['game']}"
        check_values(name, m["values"])
    assert format_value(getattr(Rules(), name)) == index["default"]
    assert index["section"] == row["section"], f"{name}: section {index['section']}"
    assert index["target"] == anchor_of(row["section"].split(",")[0])


def test_each_option_is_described_in_its_section():
    """An option's entry lies inside the section its metadata names (A2.3 for omnibus)."""
    current = None
    where = {}
    for a in anchors():
        if a in SECTION_ANCHORS:
            current = a
        elif a.startswith("opt-"):
            where[a[len("opt-") :]] = current
    for name in RULE_NAMES:
        if name not in where:
            continue  # reported by test_every_option_of_rules_is_documented
        want = anchor_of(RULE_FIELDS[name].metadata["section"].split(",")[0])
        got = where[name]
        assert got == want or (got or "").startswith(want + "-"), (
            f"opt-{name} is in section {got}, its section is {want}"
        )


@pytest.mark.parametrize("section", SECTIONS)
def test_section_anchor_precedes_a_heading_with_its_number(section):
    anchor = anchor_of(section)
    line = f'<a id="{anchor}"></a>'
    assert line in LINES, f"docs/rules.md has no anchor {anchor} for {section}"
    heading = LINES[LINES.index(line) + 1]
    m = re.match(r"^#{2,4} (.*)$", heading)
    assert m, f"anchor {anchor} is not followed by a heading: {heading!r}"
    assert re.match(re.escape(section) + r"[ .]", m[1]), f"heading {heading!r} lacks {section}"


# --- citations of docs/rules.md anywhere in the repository ----------------------------

SEC = r"[ABC](?:\d+(?:\.\d+)?)?(?!\w)"
CITATION = re.compile(
    r"docs/rules\.md[ \t]+(?:(?:parts?|sections?)[ \t]+)?"
    rf"(?P<list>{SEC}(?:[ \t]*(?:,|-|–|to|and)[ \t]*(?:(?:parts?)[ \t]+)?{SEC})*)"
)
LINK = re.compile(r"(?<![\w.])(?:docs/)?rules\.md#(?P<anchor>[\w-]+)")


def cited_anchors(text: str) -> set[str]:
    """Return the anchors that ``text`` cites as ``docs/rules.md A1.5`` or ``rules.md#x``."""
    out = {m["anchor"] for m in LINK.finditer(text)}
    for m in CITATION.finditer(text):
        out |= {anchor_of(s) for s in re.findall(SEC, m["list"])}
    return out


def test_citation_parser_reads_every_form():
    assert cited_anchors("see docs/rules.md A1.5.") == {"a1-5"}
    assert cited_anchors("(docs/rules.md A1.3-A1.7)") == {"a1-3", "a1-7"}
    assert cited_anchors("docs/rules.md A1.8, A2, A3") == {"a1-8", "a2", "a3"}
    assert cited_anchors("docs/rules.md parts A, B") == {"a", "b"}
    assert cited_anchors("docs/rules.md part B; more") == {"b"}
    assert cited_anchors("[x](docs/rules.md#opt-omnibus) [y](rules.md#b2-5)") == {
        "opt-omnibus",
        "b2-5",
    }
    assert cited_anchors("hsim/model/rules.py A1.5, docs/rules.py A1.6, rules.md") == set()
    assert cited_anchors("docs/rules.md A9.9") - set(anchors()) == {"a9-9"}


def repository_texts() -> list[Path]:
    files = [ROOT / "README.md", ROOT / "results" / "README.md"]
    files += sorted((ROOT / "docs").glob("*.md"))
    files += sorted((ROOT / "tests" / "data" / "help").glob("*.txt"))
    for folder in ("hsim", "strategies", "scripts", "tests"):
        files += sorted((ROOT / folder).rglob("*.py"))
    return [f for f in files if f.is_file()]


def test_every_citation_in_the_repository_names_an_anchor():
    known = set(anchors())
    bad = []
    for path in repository_texts():
        if path == Path(__file__).resolve():
            continue  # its parser test cites a missing section on purpose
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            for a in sorted(cited_anchors(line) - known):
                bad.append(f"{path.relative_to(ROOT)}:{n}: #{a}")
    assert not bad, "citations of docs/rules.md sections that do not exist:\n" + "\n".join(bad)


def test_links_inside_the_doc_and_option_sections_name_anchors():
    known = set(anchors())
    internal = set(re.findall(r"\]\(#([\w-]+)\)", TEXT))
    assert not sorted(internal - known), f"links to missing anchors: {sorted(internal - known)}"
    for row in describe_options():  # `hsim rules` prints these section numbers
        for section in row["section"].split(","):
            assert anchor_of(section) in known, f"{row['name']}: section {section} not in doc"


# --- tables checked against the engine ------------------------------------------------


def table_after(title: str) -> list[list[str]]:
    """Return the cells of the body rows of the first table after line ``title``."""
    i = LINES.index(title) + 1
    while not LINES[i].startswith("|"):
        i += 1
    rows = []
    i += 2  # header and separator
    while i < len(LINES) and LINES[i].startswith("|"):
        rows.append([c.strip() for c in LINES[i].strip("|").split("|")])
        i += 1
    return rows


@pytest.mark.parametrize(
    "n, rebel, title",
    [
        (4, 0, "4 players:"),
        (4, 1, "4 players with `rebel=true`:"),
        (3, 0, "3 players:"),
        (3, 1, "3 players with `rebel=true`:"),
    ],
)
def test_kierki_deal_order_table_matches_the_engine(n, rebel, title):
    rows = table_after(title)
    assert len(rows) == K.n_deals(n, rebel)
    for k, (deal, kind, dealer, leads, chooser) in enumerate(rows):
        code = K.deal_kind(k, n, rebel)
        assert int(deal) == k + 1
        assert kind == f"`{KIERKI_KINDS[code]}`", f"deal {k + 1}"
        assert int(dealer) == K.dealer_of(k, n)
        assert int(leads) == K.leader_of(k, n, code, K.LOTTERY_LEADER_DEALER)
        if code == K.KIND_TRUMP:
            assert int(chooser) == K.trump_chooser_of(k, n, K.TRUMP_CHOOSER_DEALER_LEFT)
        else:
            assert chooser == "-"


def test_kierki_values_table_matches_the_engine():
    per_item = {
        "tricks": K.PTS_TRICK,
        "hearts": K.PTS_HEART,
        "queens": K.PTS_QUEEN,
        "men": K.PTS_MAN,
        "king_of_hearts": K.PTS_KING_OF_HEARTS,
        "seventh_and_last": K.PTS_SEVENTH_OR_LAST,
    }
    count = {"hearts": 13, "queens": 4, "men": 8, "king_of_hearts": 1, "seventh_and_last": 2}
    rows = table_after('<a id="b1-values"></a>')
    kinds = [r[1].strip("`") for r in rows]
    assert kinds == [*KIERKI_KINDS, "lottery"], kinds
    lottery = [r for r in rows if r[1] == "`lottery`"]
    for row in rows:
        kind = row[1].strip("`")
        for col, n in ((3, 4), (4, 3)):
            p = n - 3
            item = None if row[col] == "as above" else int(row[col])
            whole = int(row[col + 2]) if row[col + 2] else None
            hand = K.hand_size(n)
            if kind in per_item:
                assert item == per_item[kind][p], f"{kind}, {n} players"
                assert whole == item * count.get(kind, hand), f"{kind}, {n} players, whole deal"
            elif kind == "rebel":
                full = sum(v[p] * count.get(k, hand) for k, v in per_item.items())
                assert whole == full, f"rebel, {n} players"
            elif kind == "trump":
                value = Rules(game="kierki", players=n).trump_points
                assert item == value and whole == value * hand, f"trump, {n} players"
        assert kind in per_item or kind in ("rebel", "trump", "lottery")
    for col, n in ((3, 4), (4, 3)):
        first, second = int(lottery[0][col]), int(lottery[1][col])
        assert first == K.lottery_place_score(0, n, 0) and second == K.lottery_place_score(1, n, 0)
        assert int(lottery[0][col + 2]) == first + second


def test_pass_direction_table_matches_the_engine():
    rules = Rules().to_array()
    for cells in table_after('<a id="a1-2"></a>'):
        deals = [int(d) for d in re.findall(r"\d+", cells[0])]
        for deal in deals:
            direction = H.pass_direction(rules, deal - 1)
            assert cells[1].startswith(PASS_DIRECTIONS[direction]), f"deal {deal}"
            if direction < 3:
                assert cells[2] == f"seat {H.pass_target(0, direction)}"
                giver = [s for s in range(4) if H.pass_target(s, direction) == 0]
                assert cells[3] == f"seat {giver[0]}"
    none = Rules(passing="none").to_array()
    assert all(H.pass_direction(none, k) == 3 for k in range(8))


def test_preset_table_matches_the_presets():
    rows = {r[0].strip("`"): r for r in table_after('<a id="a4"></a>')}
    assert set(rows) == set(PRESETS)
    for name, row in rows.items():
        listed = dict(
            re.fullmatch(r"(\w+)=(\w+)", t).groups() for t in re.findall(r"`([^`]+)`", row[2])
        )
        diff = differences(Rules(), PRESETS[name])
        assert listed == {k: format_value(v) for k, v in diff.items()}, name


def test_point_tables_table_matches_the_code():
    """docs/rules.md B1's point tables against hsim.model.rules.POINT_TABLES (4 players)."""
    items = [
        "trick",
        "heart",
        "queen",
        "man",
        "king_of_hearts",
        "seventh_or_last",
        "trump_trick",
        "lottery_first",
        "lottery_second",
    ]
    rows = table_after('<a id="b1-tables"></a>')
    assert len(rows) == len(items) + 1
    names = list(POINT_TABLES)
    assert names == list(RULE_FIELDS["point_table"].metadata["choices"])
    counts = (13, 13, 4, 8, 1, 2)
    for row, item in zip(rows, items, strict=False):
        for col, table in enumerate(names, start=1):
            sign = 1 if item.startswith(("trump", "lottery")) else -1
            assert int(row[col]) == sign * POINT_TABLES[table][item][1], (item, table)
    for col, table in enumerate(names, start=1):
        whole = sum(POINT_TABLES[table][i][1] * c for i, c in zip(items, counts, strict=False))
        assert int(rows[-1][col]) == -whole, table
