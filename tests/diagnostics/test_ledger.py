"""The ledger of vendor claims (umkit/ledger.json): every entry well formed and used, every
citation resolvable, the error table's vendor rows and the doctor's AMD checks citing it, and
docs/amd-sources.md exactly its rendering."""
import json
import re
from pathlib import Path

import pytest

import umkit.ledger as L
from umkit.errors import table

ROOT = Path(__file__).resolve().parents[2]
#: where citations live: the package, the notebooks, the HIP programs, the docs
CITING = [p for top in ("umkit", "notebooks", "kernels", "docs") for p in (ROOT / top).rglob("*")
          if p.is_file() and p.suffix in (".py", ".ipynb", ".hip", ".cu", ".md", ".json")
          and p.name not in ("ledger.json", "ledger.py", "amd-sources.md")
          and "__pycache__" not in p.parts]


def _text(p: Path) -> str:
    """What a reader reads: a notebook's cell sources, joined; a Python module's strings (with
    implicitly concatenated pieces joined, so an id split over two source lines is read whole)
    and its comments; any other file as it is."""
    raw = p.read_text(encoding="utf-8", errors="replace")
    if p.suffix == ".ipynb":
        return "\n".join("".join(c["source"]) for c in json.loads(raw)["cells"])
    if p.suffix == ".py":
        import ast
        import io
        import tokenize
        strings = [n.value for n in ast.walk(ast.parse(raw))
                   if isinstance(n, ast.Constant) and isinstance(n.value, str)]
        comments = [t.string for t in tokenize.generate_tokens(io.StringIO(raw).readline)
                    if t.type == tokenize.COMMENT]
        return "\n".join(strings + comments)
    return raw


def _all_citations() -> dict:
    out = {}
    for p in CITING:
        for i in L.cited(_text(p)):
            out.setdefault(i, []).append(p.relative_to(ROOT))
    return out


def test_the_ledger_is_well_formed():
    assert L.problems() == []
    assert len(L.entries()) >= 30


def test_every_entry_has_a_source_and_a_status():
    for e in L.entries().values():
        assert e.citation() and e.status, e.id


def test_every_citation_names_an_entry():
    unknown = {i: [str(p) for p in ps] for i, ps in _all_citations().items()
               if i not in L.entries()}
    assert unknown == {}


def test_every_entry_is_used_somewhere():
    used = set(_all_citations()) | {c for r in table.ERRORS + table.SYMPTOMS for c in r.claims}
    assert sorted(set(L.entries()) - used) == []


#: words of AMD unified-memory behaviour (the driver's /dev/kfd in an install hint is not one)
AMD_WORDS = re.compile(r"XNACK|xnack|amdkfd|\bKFD\b|rocprof|MI[23]\d0|gfx9\w+|\bHMM\b|\bSVM\b")


@pytest.mark.parametrize("row", table.ERRORS + table.SYMPTOMS, ids=lambda r: r.key)
def test_error_table_rows_on_amd_behaviour_cite_the_ledger(row):
    text = " ".join(str(getattr(row, f, "")) for f in ("message", "hint", "cause", "tools",
                                                        "note"))
    for c in row.claims:
        L.entry(c)                                   # raises for an unknown id
    if AMD_WORDS.search(text):
        assert row.claims, f"{row.key} states AMD behaviour without a ledger entry"


def test_the_doctor_cites_the_ledger_for_its_amd_checks():
    src = (ROOT / "umkit/diagnostics/doctor.py").read_text()
    for i in ("amd.attr.pageable_xnack", "amd.attr.concurrent_managed", "amd.attr.direct_host"):
        assert i in L.cited(src), i


def test_docs_amd_sources_is_the_rendered_ledger():
    assert (ROOT / "docs/amd-sources.md").read_text() == L.markdown() + "\n"


def test_cited_finds_every_id_of_a_list():
    assert L.cited("x (ledger: amd.a.b, nv.c.d) y ledger: amd.e.f") == ["amd.a.b", "nv.c.d",
                                                                        "amd.e.f"]


# -- version scope (issue 42, item 5: behaviour that changed between kernel versions) ------------
def _one(**extra):
    e = {"id": "amd.test.entry", "statement": "a statement long enough to be one",
         "scope": {"vendor": "amd", "arch": "all", "xnack": "any", "link": "any"},
         "source": {"repo": "torvalds/linux", "path": "x.c", "commit": "006ad514"},
         "status": "verified in source", **extra}
    return {"entries": [e]}


def test_a_version_scope_needs_a_version_a_commit_and_the_behaviour():
    good = {"since": "Linux 6.8", "commit": "18eb61bd5a6a",
            "behaviour": "only the granule around the fault moves"}
    assert L.problems(_one(versions=[good])) == []
    for bad in ({k: v for k, v in good.items() if k != "since"},      # no since / until
                {**good, "commit": "HEAD"},                             # not a commit
                {**good, "behaviour": "changed"},                       # says nothing
                "since 6.8"):
        assert any("versions[0]" in p for p in L.problems(_one(versions=[bad]))), bad
    assert any("versions must be a list" in p for p in L.problems(_one(versions="6.8")))


def test_partial_migration_and_the_granularity_parameter_are_version_scoped():
    """amdkfd registers a managed allocation as one range up to Linux 5.19 and splits it since
    6.0; it migrates the whole range per GPU fault up to Linux 6.7 and the granule since 6.8
    (partial migration); the default granularity is hard-coded up to 6.11 and a module
    parameter since 6.12: the ledger says so, with the commits, and the rendering shows it."""
    g = L.entry("amd.fault.granule")
    scope = {(k, v[k]) for v in g.versions for k in L.VERSION_KEYS if v.get(k)}
    assert {("until", "Linux 5.19"), ("since", "Linux 6.0"), ("until", "Linux 6.7"),
            ("since", "Linux 6.8"), ("until", "Linux 6.11"), ("since", "Linux 6.12")} <= scope
    # each row cites the commit that changed the behaviour, not a snapshot read before it
    assert all(v["commit"].startswith(("5640cb89", "18eb61bd", "01be2b62")) for v in g.versions)
    assert any(v["commit"].startswith("01be2b62") for v in g.versions)
    text = L.markdown()
    assert "- **version:** since Linux 6.8 (torvalds/linux 18eb61bd5a6a)" in text
    # the logic amd.advise.remap quotes (update_mapping) is not in 8f8cc3fb (finding I8)
    assert not L.entry("amd.advise.remap").source["commit"].startswith("8f8cc3fb")


def test_the_ledger_command_prints_version_scopes(capsys):
    assert L.main(["amd.fault.granule"]) == 0
    out = capsys.readouterr().out
    assert "version: since Linux 6.12" in out and "version: until Linux 6.7" in out
