"""Issue 46, nothing lost on save: every file umkit writes goes through umkit.results.files (a
temporary file beside the target, fsync, rename); an existing result is kept unless force /
--force (or numbered, for run.sh ecg's artifacts); a failed write leaves the old file and is a
typed error.  A full disk is made real with RLIMIT_FSIZE in a child process (the write fails
with EFBIG as it would with ENOSPC) and with a monkeypatched fsync raising ENOSPC."""
import errno
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import umkit
from umkit.backends import names
from umkit.results import files

ROOT = Path(__file__).resolve().parents[1]
PY = sys.executable
ENV = dict(os.environ, UMKIT_BACKEND="sim", PYTHONHASHSEED="0")


def recorded():
    umkit.use("sim", quiet=True)
    with umkit.ecg.recorder("loop") as rec:
        for _ in range(3):
            rec.step()
    return rec.result()


def no_temp_left(folder: Path):
    assert not [p.name for p in folder.iterdir() if p.name.endswith(".tmp")]


# -- the helper --------------------------------------------------------------------------------------
def test_write_refuses_replaces_or_numbers(tmp_path):
    p = tmp_path / "r.json"
    assert files.write(p, "one") == p and p.read_text() == "one"
    with pytest.raises(files.AlreadyExists, match="force=True") as e:
        files.write(p, "two")
    assert e.value.argument == "path" and p.read_text() == "one"
    with pytest.raises(files.AlreadyExists, match="--force"):
        files.write(p, "two", argument="--json", flag="--force")
    assert files.write(p, "two", force=True) == p and p.read_text() == "two"
    assert files.write(p, "three", exists="number") == tmp_path / "r-2.json"
    assert files.write(p, "four", exists="number") == tmp_path / "r-3.json"
    assert p.read_text() == "two" and (tmp_path / "r-2.json").read_text() == "three"
    no_temp_left(tmp_path)


def test_a_failed_write_keeps_the_old_file_and_is_typed(tmp_path, monkeypatch):
    p = tmp_path / "r.json"
    p.write_text("old")

    def full(fd):
        raise OSError(errno.ENOSPC, "No space left on device")
    monkeypatch.setattr(os, "fsync", full)
    with pytest.raises(files.WriteFailed) as e:
        files.write(p, "new" * 1000, force=True)
    assert isinstance(e.value, OSError) and e.value.errno == errno.ENOSPC
    assert e.value.path == str(p) and "space" in e.value.hint
    assert p.read_text() == "old"
    no_temp_left(tmp_path)


FULL_DISK = textwrap.dedent("""
    import resource, signal, sys
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    import umkit
    umkit.use("sim", quiet=True)
    with umkit.ecg.recorder("x" * 900) as rec:
        for _ in range(200):
            rec.step(note="n" * 50)
    r = rec.result()
    resource.setrlimit(resource.RLIMIT_FSIZE, (4096, 4096))   # a disk that holds 4 KiB a file
    try:
        r.save(sys.argv[1], **({"force": True} if "force" in r.save.__code__.co_varnames else {}))
    except umkit.UmkitError as e:
        print("TYPED", type(e).__name__, getattr(e, "errno", None))
    except OSError as e:
        print("UNTYPED", type(e).__name__)
""")


def test_record_result_save_on_a_full_disk_keeps_the_old_run(tmp_path):
    p = tmp_path / "run.json"
    old = recorded().save(p)
    before = old.read_bytes()
    r = subprocess.run([PY, "-c", FULL_DISK, str(p)], capture_output=True, text=True, env=ENV,
                       timeout=300, cwd=tmp_path)
    assert "TYPED WriteFailed 27" in r.stdout, r.stdout + r.stderr      # EFBIG
    assert p.read_bytes() == before
    assert umkit.ecg.load(p).step_ms == recorded().step_ms
    no_temp_left(tmp_path)


def test_saves_keep_an_existing_result_unless_force(tmp_path):
    r = recorded()
    p = tmp_path / "run.json"
    p.write_text("my earlier result")
    with pytest.raises(files.AlreadyExists, match="force=True") as e:
        r.save(p)
    assert e.value.argument == "path" and p.read_text() == "my earlier result"
    r.save(p, force=True)
    assert umkit.ecg.load(p).step_ms == r.step_ms
    umkit.use("sim", quiet=True)
    with umkit.plan.recorder() as rec:
        a = umkit.managed(1 << 16)
        umkit.fill(a, 1.0)
        rec.step()
    q = tmp_path / "loop.plan.json"
    q.write_text("mine")
    with pytest.raises(files.AlreadyExists):
        rec.result().save(q)
    assert q.read_text() == "mine"
    rec.result().save(q, force=True)
    assert umkit.plan.load(q).steps == 1


# -- the generated header ------------------------------------------------------------------------------
def test_write_cuda_header_replaces_only_its_own_header(tmp_path):
    import hashlib
    h = names.write_cuda_header(tmp_path)
    assert h.read_text() == names.cuda_header()
    record = h.with_name(".hip_runtime.h.umkit")
    # umkit's own header from an older table (its record matches it): refreshed
    old = names.cuda_header().replace("cudaMallocManaged", "cudaMallocManagedOld")
    h.write_text(old)
    record.write_text(hashlib.sha256(old.encode()).hexdigest())
    names.write_cuda_header(tmp_path)
    assert h.read_text() == names.cuda_header()
    h.write_text("// a real HIP header\n")
    with pytest.raises(files.AlreadyExists, match="force=True") as e:
        names.write_cuda_header(tmp_path)
    assert e.value.argument == "include_dir" and h.read_text() == "// a real HIP header\n"
    names.write_cuda_header(tmp_path, force=True)
    assert h.read_text() == names.cuda_header()


def test_write_cuda_header_keeps_an_edited_generated_header(tmp_path):
    """D3: the header keeps umkit's first line but its body was edited: kept, typed error."""
    h = names.write_cuda_header(tmp_path)
    edited = h.read_text() + "#define MY_FIX 1\n"
    h.write_text(edited)
    with pytest.raises(files.AlreadyExists) as e:
        names.write_cuda_header(tmp_path)
    assert "edited" in e.value.message and "force=True" in e.value.hint
    assert e.value.path == str(h) and h.read_text() == edited
    h.with_name(".hip_runtime.h.umkit").unlink()             # no record: kept too
    with pytest.raises(files.AlreadyExists):
        names.write_cuda_header(tmp_path)
    assert h.read_text() == edited
    assert names.write_cuda_header(tmp_path, force=True) == h
    assert h.read_text() == names.cuda_header()
    names.write_cuda_header(tmp_path)                        # unchanged and recorded: fine


@pytest.mark.parametrize("where", ["file", "/dev/full"])
def test_examples_header_under_a_file_is_one_message(tmp_path, where):
    target = tmp_path / "f" if where == "file" else Path(where)
    if where == "file":
        target.write_text("x")
    r = subprocess.run([PY, "-m", "umkit.examples", "header", str(target)], capture_output=True,
                       text=True, env=ENV, timeout=120)
    assert r.returncode == 2 and "Traceback" not in r.stderr, r.stderr
    assert "include_dir" in r.stderr


# -- the command line --------------------------------------------------------------------------------
ECG = ["-m", "umkit.cli", "ecg", "--steps", "2", "--size", "1", "--strategies", "device", "--quiet"]


def run(args, cwd, **kw):
    return subprocess.run([PY, *args], capture_output=True, text=True, env=ENV, cwd=cwd,
                          timeout=300, **kw)


def test_umkit_ecg_keeps_existing_files_unless_force_and_numbers_on_request(tmp_path):
    (tmp_path / "e.json").write_text("mine")
    r = run(ECG + ["--json", "e.json"], tmp_path)
    assert r.returncode == 2 and "--force" in r.stderr and "Traceback" not in r.stderr
    assert (tmp_path / "e.json").read_text() == "mine"
    r = run(ECG + ["--json", "e.json", "--out", "e.png", "--numbered"], tmp_path)
    assert r.returncode == 0, r.stderr
    assert json.loads((tmp_path / "e-2.json").read_text())["steps"] == 2
    assert (tmp_path / "e-2.png").read_bytes()[:4] == b"\x89PNG"
    assert (tmp_path / "e.json").read_text() == "mine" and not (tmp_path / "e.png").exists()
    r = run(ECG + ["--json", "e.json", "--force"], tmp_path)
    assert r.returncode == 0 and json.loads((tmp_path / "e.json").read_text())["steps"] == 2


def test_umkit_ecg_on_a_full_disk_is_one_message_and_keeps_the_old_file(tmp_path):
    (tmp_path / "e.json").write_text("old")
    code = ("import resource, signal, sys; signal.signal(signal.SIGXFSZ, signal.SIG_IGN); "
            "resource.setrlimit(resource.RLIMIT_FSIZE, (512, 512)); "
            "from umkit.cli import main; sys.exit(main(sys.argv[1:]))")
    r = run(["-c", code] + ECG[2:] + ["--json", "e.json", "--force"], tmp_path)
    assert r.returncode == 1 and "Traceback" not in r.stderr, r.stderr
    assert r.stderr.startswith("umkit ecg: --json='e.json' could not be written")
    assert (tmp_path / "e.json").read_text() == "old"
    no_temp_left(tmp_path)


def test_umkit_plan_json_and_calibrate_out_keep_existing_files(tmp_path):
    umkit.use("sim", quiet=True)
    with umkit.plan.recorder() as rec:
        a = umkit.managed(1 << 16)
        umkit.fill(a, 1.0)
        rec.step()
    rec.result().save(tmp_path / "loop.plan.json")
    (tmp_path / "adv.json").write_text("mine")
    r = run(["-m", "umkit.cli", "plan", "loop.plan.json", "--json", "adv.json"], tmp_path)
    assert r.returncode == 2 and "--force" in r.stderr and "Traceback" not in r.stderr
    assert (tmp_path / "adv.json").read_text() == "mine"
    r = run(["-m", "umkit.cli", "plan", "loop.plan.json", "--json", "adv.json", "--force"],
            tmp_path)
    assert r.returncode == 0, r.stderr
    assert "plans" in json.loads((tmp_path / "adv.json").read_text()) or \
        json.loads((tmp_path / "adv.json").read_text())
    (tmp_path / "cal.json").write_text("mine")
    r = run(["-m", "umkit.cli", "calibrate", "--compare", "--out", "cal.json"], tmp_path)
    assert r.returncode == 2 and "--force" in r.stderr and "Traceback" not in r.stderr
    assert (tmp_path / "cal.json").read_text() == "mine"


def test_umkit_plan_exits_2_for_a_recording_on_an_unknown_profile(tmp_path):
    umkit.use("sim", quiet=True)
    with umkit.plan.recorder() as rec:
        a = umkit.managed(1 << 16)
        umkit.fill(a, 1.0)
        rec.step()
    d = rec.result().to_dict()
    d["profile"] = "no-such-card"
    d["meta"]["recorded_on"] = "no-such-card"
    (tmp_path / "p.json").write_text(json.dumps(d))
    r = run(["-m", "umkit.cli", "plan", "p.json"], tmp_path)
    assert r.returncode == 2 and "Traceback" not in r.stderr, r.stderr
    assert "no-such-card" in r.stderr and "--profiles" in r.stderr


# -- the Chinese workspace keeps a learner's language -----------------------------------------------
def test_zh_workspace_sync_keeps_an_edited_language_marker(tmp_path):
    from umkit.teaching import workspace
    dest = tmp_path / "ws"
    workspace.sync(ROOT / "notebooks", dest, lang="zh")
    marker = dest / ".umkit-lang"
    assert marker.read_text().strip() == "zh"
    marker.write_text("en\n")                    # the learner prefers English messages
    workspace.sync(ROOT / "notebooks", dest, lang="zh")
    assert marker.read_text() == "en\n"
    marker.unlink()
    workspace.sync(ROOT / "notebooks", dest, lang="zh")
    assert marker.read_text().strip() == "zh"
