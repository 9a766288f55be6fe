"""Content hashes of input files (`store/file_digest`): the same hex digest as hashlib gives for
the file's bytes, whether the file is read whole or in chunks, one file or many in threads."""

from __future__ import annotations

import hashlib
import os

from audioeval.store import file_digest
from audioeval.store.file_digest import MISSING, file_sha256, files_sha256


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def test_small_and_large_files_hash_as_hashlib_does(tmp_path):
    small = tmp_path / "small.wav"
    small.write_bytes(b"RIFF" + bytes(range(256)) * 40)
    large = tmp_path / "large.wav"  # over one chunk: read a chunk at a time
    data = os.urandom((1 << 20) * 2 + 12345)
    large.write_bytes(data)
    empty = tmp_path / "empty.wav"
    empty.write_bytes(b"")
    assert file_sha256(small) == _sha(small.read_bytes())
    assert file_sha256(large) == _sha(data)
    assert file_sha256(empty) == _sha(b"")
    assert file_sha256(tmp_path / "absent.wav") == MISSING
    assert file_sha256(tmp_path) == MISSING  # a folder is not a readable file


def test_many_files_each_hashed_and_named_by_the_path_given(tmp_path, monkeypatch):
    monkeypatch.setattr(file_digest, "_memo", {})
    paths = []
    for k in range(53):  # enough to be split into runs over threads
        p = tmp_path / f"clip{k}.wav"
        p.write_bytes(f"clip {k}".encode() * (k + 1))
        paths.append(p)
    given = [str(p) for p in paths] + [str(paths[3]), str(tmp_path / "gone.wav")]  # a repeat, a missing file
    out = files_sha256(given, threads=4)
    assert list(out) == list(dict.fromkeys(given))  # the order given, each path once
    for p in paths:
        assert out[str(p)] == _sha(p.read_bytes())
    assert out[str(tmp_path / "gone.wav")] == MISSING
    assert files_sha256(given[:3], threads=4) == {g: out[g] for g in given[:3]}  # few files: no threads


def test_a_rewritten_file_is_hashed_again(tmp_path):
    p = tmp_path / "a.wav"
    p.write_bytes(b"first")
    first = file_sha256(p)
    p.write_bytes(b"second, longer")
    assert file_sha256(p) == _sha(b"second, longer") != first


def test_sample_digests_keep_the_text_earlier_records_were_hashed_from():
    """Records of earlier runs hold `json_digest`s of this exact text: keys sorted, non-ASCII
    as is, a value JSON has no form for written as its str()."""
    import json
    from datetime import date
    from pathlib import Path

    from audioeval.store.file_digest import json_digest

    value = {"id": "s1", "fields": {"é": "ü\u2028x", "n": [1, 2.5, None, True], "d": date(2024, 1, 2)},
             "audio": {"b": [Path("/a.wav"), 0.5, None], "a": []}, "taxonomy": {}}  # fmt: skip
    text = json.dumps(value, sort_keys=True, ensure_ascii=False, default=str)
    assert json_digest(value) == hashlib.sha256(text.encode("utf-8")).hexdigest()
    assert '"d": "2024-01-02"' in text and text.index('"a"') < text.index('"b"')
