"""umkit.errors: the HIP/CUDA/HSA error table, explain(), hint_for(), error_from_code()."""
from __future__ import annotations

import io
import re

import pytest

from umkit import errors
from umkit.errors.table import (ERRORS, SYMPTOMS, error_from_code, hint_for, lookup, lookup_code,
                                raise_for)
from umkit.errors import (BackendError, BackendOutOfMemory, InvalidArgument, InvalidType,
                          OutOfMemory, RaceDetected, UmkitError, UseAfterFree)
from umkit.diagnostics.explain import explain


def _explain(x) -> str:
    buf = io.StringIO()
    text = explain(x, file=buf)
    assert buf.getvalue() == text + "\n"     # what it prints is what it returns
    return text


# -- the table ----------------------------------------------------------------------------------
# Spot checks.  Sources: cuda-bindings 13.5 cudaError_t; hip_runtime_api.h hipError_t (ROCm/HIP,
# and rocm.docs.amd.com "HIP error codes"); hipfort_cuda_errors on rocm.docs.amd.com; ROCR's
# hsa.h / hsa_ext_amd.h for the HSA statuses.
KNOWN = {
    "cudaSuccess": 0, "hipSuccess": 0,
    "cudaErrorInvalidValue": 1, "hipErrorInvalidValue": 1,
    "cudaErrorMemoryAllocation": 2, "hipErrorOutOfMemory": 2, "hipErrorMemoryAllocation": 2,
    "cudaErrorInitializationError": 3, "hipErrorNotInitialized": 3,
    "cudaErrorCudartUnloading": 4, "hipErrorDeinitialized": 4,
    "cudaErrorInvalidDevicePointer": 17, "hipErrorInvalidDevicePointer": 17,
    "cudaErrorInvalidMemcpyDirection": 21, "hipErrorInvalidMemcpyDirection": 21,
    "cudaErrorInsufficientDriver": 35, "hipErrorInsufficientDriver": 35,
    "cudaErrorDevicesUnavailable": 46,
    "cudaErrorNoDevice": 100, "hipErrorNoDevice": 100,
    "cudaErrorInvalidDevice": 101, "hipErrorInvalidDevice": 101,
    "cudaErrorPeerAccessUnsupported": 217, "hipErrorPeerAccessUnsupported": 217,
    "cudaErrorInvalidResourceHandle": 400, "hipErrorInvalidHandle": 400,
    "cudaErrorNotReady": 600, "hipErrorNotReady": 600,
    "cudaErrorIllegalAddress": 700, "hipErrorIllegalAddress": 700,
    "cudaErrorLaunchOutOfResources": 701, "hipErrorLaunchOutOfResources": 701,
    "cudaErrorPeerAccessAlreadyEnabled": 704, "hipErrorPeerAccessAlreadyEnabled": 704,
    "cudaErrorPeerAccessNotEnabled": 705, "hipErrorPeerAccessNotEnabled": 705,
    "cudaErrorAssert": 710, "hipErrorAssert": 710,
    "cudaErrorIllegalInstruction": 715,
    "cudaErrorLaunchFailure": 719, "hipErrorLaunchFailure": 719,
    "cudaErrorNotSupported": 801, "hipErrorNotSupported": 801,
    "cudaErrorStreamCaptureUnsupported": 900, "hipErrorStreamCaptureUnsupported": 900,
    "cudaErrorStreamCaptureInvalidated": 901, "hipErrorStreamCaptureInvalidated": 901,
    "cudaErrorStreamCaptureImplicit": 906, "hipErrorStreamCaptureImplicit": 906,
    "cudaErrorUnknown": 999, "hipErrorUnknown": 999,
    "hipErrorRuntimeMemory": 1052,
    "HSA_STATUS_ERROR": 0x1000, "HSA_STATUS_ERROR_OUT_OF_RESOURCES": 0x1008,
    "HSA_STATUS_ERROR_INVALID_MEMORY_POOL": 40, "HSA_STATUS_ERROR_MEMORY_APERTURE_VIOLATION": 41,
    "HSA_STATUS_ERROR_ILLEGAL_INSTRUCTION": 42, "HSA_STATUS_ERROR_MEMORY_FAULT": 43,
}


def _code_of(name: str) -> int | None:
    row = lookup(name)
    assert row is not None, name
    for col in ("cuda", "hip", "hsa"):
        if getattr(row, col) == name:
            return getattr(row, col + "_code")
    return {"hipErrorMemoryAllocation": row.hip_code}.get(name)


@pytest.mark.parametrize("name,code", sorted(KNOWN.items()))
def test_known_codes(name, code):
    assert _code_of(name) == code


def test_hip_and_cuda_names_differ_but_share_the_row():
    oom = lookup("hipErrorOutOfMemory")
    assert oom is lookup("cudaErrorMemoryAllocation") is lookup("hipErrorMemoryAllocation")
    assert oom.oom and oom.cuda == "cudaErrorMemoryAllocation" and oom.hip == "hipErrorOutOfMemory"
    assert lookup("cudaErrorInvalidResourceHandle").hip == "hipErrorInvalidHandle"


def test_every_row_is_complete():
    assert len(ERRORS) >= 40 and len(SYMPTOMS) >= 3
    keys = set()
    for row in ERRORS:
        assert row.key not in keys
        keys.add(row.key)
        assert row.message.strip() and row.hint.strip(), row.key
        assert row.cuda or row.hip or row.hsa, row.key
        for col, prefix in (("cuda", "cuda"), ("hip", "hip"), ("hsa", "HSA_")):
            name, code = getattr(row, col), getattr(row, col + "_code")
            if name:
                assert name.startswith(prefix), (row.key, name)
            else:
                assert code is None, row.key
            if code is not None:
                assert isinstance(code, int) and code >= 0
        if row.cuda and row.hip:
            assert row.cuda_code is not None and row.hip_code is not None
        elif (row.cuda or row.hip) and not (row.cuda and row.hip):
            # one runtime only: the note must say what the other one reports instead
            assert "no such code" in row.note, row.key
        if row.section:
            assert re.fullmatch(r"§\d\.\d(, §\d\.\d)*", row.section), row.key


def test_no_name_belongs_to_two_rows():
    seen = {}
    for row in ERRORS:
        for n in row.names:
            assert n.lower() not in seen, (n, seen.get(n.lower()), row.key)
            seen[n.lower()] = row.key


def test_required_rows_present():
    for name in ("cudaSuccess", "hipErrorInvalidValue", "hipErrorOutOfMemory",
                 "hipErrorNotInitialized", "hipErrorDeinitialized", "hipErrorInvalidDevice",
                 "hipErrorInvalidDevicePointer", "hipErrorInvalidMemcpyDirection",
                 "hipErrorNoDevice", "hipErrorInsufficientDriver", "hipErrorInvalidHandle",
                 "hipErrorNotReady", "hipErrorIllegalAddress", "hipErrorLaunchFailure",
                 "hipErrorLaunchOutOfResources", "hipErrorNotSupported", "hipErrorUnknown",
                 "hipErrorPeerAccessNotEnabled", "HSA_STATUS_ERROR_INVALID_MEMORY",
                 "hipErrorMemoryAllocation", "cudaErrorDevicesUnavailable",
                 "hipErrorStreamCaptureInvalidated", "cudaErrorIllegalInstruction",
                 "cudaErrorAssert"):
        assert lookup(name) is not None, name


def test_table_matches_installed_cuda_bindings():
    rt = pytest.importorskip("cuda.bindings.runtime")
    checked = 0
    for row in ERRORS:
        if row.cuda:
            assert int(getattr(rt.cudaError_t, row.cuda)) == row.cuda_code, row.cuda
            checked += 1
    assert checked >= 40


def test_table_matches_installed_hip_python():
    try:
        from hip import hip
    except Exception:  # noqa: BLE001 - hip-python absent or unloadable here
        pytest.skip("hip-python not importable")
    checked = 0
    for row in ERRORS:
        for n in (row.hip, *[a for a in row.aliases if a.startswith("hip")]):
            if n:
                assert int(getattr(hip.hipError_t, n)) == row.hip_code, n
                checked += 1
    assert checked >= 40


def test_lookup_code_labels_runtimes():
    assert {col for col, _ in lookup_code(2)} == {"cuda", "hip"}
    assert lookup_code(46, "cuda")[0][1].cuda == "cudaErrorDevicesUnavailable"
    assert lookup_code(12345) == []


# -- explain() ----------------------------------------------------------------------------------
@pytest.mark.parametrize("name", ["hipErrorOutOfMemory", "HIPERROROUTOFMEMORY",
                                  "cudaErrorMemoryAllocation", "cudaerrormemoryallocation",
                                  "hipErrorMemoryAllocation", "  hipErrorOutOfMemory "])
def test_explain_by_name_shows_both_runtimes(name):
    text = _explain(name)
    assert "hipErrorOutOfMemory" in text and "cudaErrorMemoryAllocation" in text
    assert "§5.1" in text and "umkit.doctor()" in text and "device memory" in text


def test_explain_hsa_invalid_memory_points_to_ipc():
    text = _explain("hsa_status_error_invalid_memory")
    assert "HSA_STATUS_ERROR_INVALID_MEMORY" in text
    assert "hipIpcGetMemHandle" in text and "§4.3" in text and "file mapping" in text


def test_explain_illegal_address_mentions_freed_managed_memory():
    text = " ".join(_explain("cudaErrorIllegalAddress").split())      # the lines are wrapped
    assert "hipErrorIllegalAddress" in text and "freed managed memory" in text
    assert "doesn't own" in text


def test_explain_code_same_meaning_on_both():
    text = _explain(2)
    assert "HIP 2 = hipErrorOutOfMemory" in text and "CUDA 2 = cudaErrorMemoryAllocation" in text


def test_explain_code_different_meanings_labelled():
    text = _explain(46)
    assert "means different things" in text
    assert "As a CUDA code: cudaErrorDevicesUnavailable" in text
    assert "As an HSA code: HSA_STATUS_ERROR_RESOURCE_BUSY" in text


def test_explain_code_only_one_runtime():
    text = _explain(715)
    assert "cudaErrorIllegalInstruction" in text and "not a HIP" in text
    assert "hipErrorLaunchFailure" in text          # the note: what HIP reports instead


def test_explain_numeric_and_hex_strings_are_codes():
    assert "hipErrorIllegalAddress" in _explain("700")
    assert "HSA_STATUS_ERROR_OUT_OF_RESOURCES" in _explain("0x1008")


def test_explain_unknown_code_is_helpful():
    text = _explain(123456)
    assert "no entry" in text and "umkit.explain(2)" in text


def test_explain_backend_error():
    err = error_from_code("hipMallocManaged", 2, "hip")
    text = _explain(err)
    assert text.startswith("BackendOutOfMemory: hipMallocManaged failed: hipErrorOutOfMemory (2)")
    assert "cudaErrorMemoryAllocation" in text
    assert text.count("The article's §5.1") == 1     # hint printed once, not twice


def test_explain_backend_error_by_code_when_name_unknown():
    err = BackendError("cudaMemPrefetchAsync", 801, "weird-name")
    assert "hipErrorNotSupported" in _explain(err)


def test_explain_foreign_exception_by_text():
    assert "cudaErrorIllegalAddress" in _explain(
        RuntimeError("CUDA error: an illegal memory access was encountered"))
    assert "hipErrorOutOfMemory" in _explain(
        RuntimeError("HIP out of memory. Tried to allocate 20.00 GiB"))
    assert "hipErrorInvalidDevicePointer" in _explain(
        ValueError("hipMemcpy returned hipErrorInvalidDevicePointer"))
    # the longer name wins over its prefix
    assert "What it means: The device number" not in _explain(
        ValueError("hipErrorInvalidDevicePointer"))
    assert "XNACK" in _explain(RuntimeError(
        "Memory access fault by GPU node-2 (Agent handle: 0x55) on address 0x7f. Reason: Page "
        "not present or supervisor privilege."))


def test_explain_umkit_exceptions_by_class():
    assert "illegal address" in _explain(UseAfterFree("buffer 0x1000 was freed")).lower()
    text = _explain(RaceDetected("pages 0-3 written by the CPU while add_kernel runs"))
    assert "Wrong results" in text and "Synchronize" in text
    assert "§5.1" in _explain(OutOfMemory("managed allocation refused"))
    text = _explain(InvalidArgument("prefetch(nbytes=-1): must be positive", hint="pass n > 0"))
    assert "pass n > 0" in text


def test_explain_enum_members():
    rt = pytest.importorskip("cuda.bindings.runtime")
    assert "hipErrorIllegalAddress" in _explain(rt.cudaError_t.cudaErrorIllegalAddress)


@pytest.mark.parametrize("word,title,must", [
    ("wrong result", "Wrong results, no error", "RaceDetected"),
    ("Wrong Results", "Wrong results, no error", "hipStreamSynchronize"),
    ("slow", "very slow on old cards", "hipMemcpy"),
    ("erratic", "Erratic step time", "prefetch"),
    ("thrash", "Erratic step time", "memory ECG"),
    ("slower after porting", "Slower after porting", "hipMemPrefetchAsync"),
])
def test_explain_symptoms(word, title, must):
    text = _explain(word)
    first = text.split("\n\n")[0]
    assert title in first and must in first


def test_explain_unknown_string_never_raises():
    text = _explain("flux capacitor")
    assert "no entry" in text and "'wrong result'" in text and "umkit.explain(2)" in text


def test_explain_typo_suggests_name():
    assert "Did you mean: hipErrorOutOfMemory" in _explain("hipErrorOutOfMemroy")


def test_explain_unknown_exception():
    text = _explain(KeyError("nothing GPU about this"))
    assert text.startswith("KeyError:") and "no entry" in text


@pytest.mark.parametrize("bad", [3.5, None, [2], True, object()])
def test_explain_wrong_type(bad):
    with pytest.raises(InvalidType) as e:
        explain(bad, file=io.StringIO())
    assert "error_or_code" in str(e.value) and isinstance(e.value, TypeError)


def test_explain_prints_to_stdout_by_default(capsys):
    text = explain("hipErrorNoDevice")
    assert capsys.readouterr().out == text + "\n"


# -- hint_for / error_from_code -------------------------------------------------------------------
def test_hint_for():
    assert "hipIpcGetMemHandle" in hint_for("HSA_STATUS_ERROR_INVALID_MEMORY")
    assert hint_for("cudaErrorMemoryAllocation") == hint_for("hipErrorOutOfMemory")
    assert "umkit.doctor()" in hint_for("cudaErrorNoSuchThing")


@pytest.mark.parametrize("backend,name", [("hip", "hipErrorOutOfMemory"),
                                          ("sim", "hipErrorOutOfMemory"),
                                          ("cuda", "cudaErrorMemoryAllocation")])
def test_error_from_code_oom(backend, name):
    e = error_from_code("malloc", 2, backend)
    assert isinstance(e, OutOfMemory) and isinstance(e, MemoryError)
    assert isinstance(e, UmkitError) and isinstance(e, BackendError)
    assert type(e) is BackendOutOfMemory
    assert (e.call, e.code, e.name) == ("malloc", 2, name)
    assert e.hint == hint_for(name) and "§5.1" in e.hint
    assert f"malloc failed: {name} (2)" in str(e)


def test_error_from_code_other():
    e = error_from_code("hipDeviceSynchronize", 700, "hip")
    assert type(e) is BackendError and not isinstance(e, MemoryError)
    assert e.name == "hipErrorIllegalAddress" and "freed managed memory" in e.hint
    e = error_from_code("cudaMemcpy", 400, "cuda")
    assert e.name == "cudaErrorInvalidResourceHandle"
    e = error_from_code("x", 4104, "cuda")          # an HSA code isn't a CUDA code
    assert type(e) is BackendError and e.code == 4104 and "4104" in e.name


def test_error_from_code_accepts_enums():
    rt = pytest.importorskip("cuda.bindings.runtime")
    e = error_from_code("cudaMalloc", rt.cudaError_t.cudaErrorMemoryAllocation, "cuda")
    assert isinstance(e, OutOfMemory) and e.code == 2


def test_error_from_code_rejects_bad_input():
    with pytest.raises(InvalidArgument, match="backend_name"):
        error_from_code("x", 2, "opencl")
    with pytest.raises(InvalidArgument, match="success"):
        error_from_code("x", 0, "hip")
    with pytest.raises(InvalidType):
        error_from_code("x", "two", "hip")


def test_raise_for():
    raise_for("hipFree", 0, "hip")
    with pytest.raises(OutOfMemory):
        raise_for("hipMalloc", 2, "hip")


def test_existing_hierarchy_unchanged():
    assert issubclass(errors.InvalidArgument, ValueError)
    assert issubclass(errors.InvalidType, TypeError)
    assert issubclass(errors.OutOfMemory, MemoryError)
    e = BackendError("hipMalloc", 2, "hipErrorOutOfMemory", "out of memory", hint="h")
    assert str(e) == "hipMalloc failed: hipErrorOutOfMemory (2): out of memory\n  -> h"
