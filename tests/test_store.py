import json
import os

import pytest

from audioeval.core.errors import RunConfigError
from audioeval.store.atomic import write_json_atomic
from audioeval.store.jsonl import JsonlAppender, read_jsonl
from audioeval.store.response_cache import ResponseCache, request_key
from audioeval.store.signature import check_or_write_signature


def test_append_and_read_back(tmp_path):
    path = tmp_path / "r.jsonl"
    with JsonlAppender(path) as w:
        w.append({"id": "a", "x": 1})
        w.append({"id": "b", "text": "é ünï"})
    rep = read_jsonl(path)
    assert [r["id"] for r in rep.records] == ["a", "b"]
    assert rep.records[1]["text"] == "é ünï"
    assert not rep.bad_lines and not rep.truncated_tail


def test_partial_last_line_is_ignored_then_cut_on_append(tmp_path):
    path = tmp_path / "r.jsonl"
    path.write_bytes(b'{"id": "a"}\n{"id": "b", "unfini')
    rep = read_jsonl(path)
    assert [r["id"] for r in rep.records] == ["a"] and rep.truncated_tail
    with JsonlAppender(path) as w:
        w.append({"id": "c"})
    assert path.read_text() == '{"id": "a"}\n{"id":"c"}\n'


def test_corrupt_middle_line_is_reported_not_fatal(tmp_path):
    path = tmp_path / "r.jsonl"
    path.write_text('{"id": "a"}\nnot json\n[1, 2]\n{"id": "d"}\n')
    rep = read_jsonl(path)
    assert [r["id"] for r in rep.records] == ["a", "d"]
    assert rep.bad_lines == [2, 3]


def test_atomic_write_leaves_no_temp_files(tmp_path):
    target = tmp_path / "s.json"
    write_json_atomic(target, {"a": 1})
    write_json_atomic(target, {"a": 2})
    assert json.loads(target.read_text()) == {"a": 2}
    assert os.listdir(tmp_path) == ["s.json"]
    with pytest.raises(ValueError):
        write_json_atomic(target, {"a": float("nan")})
    assert json.loads(target.read_text()) == {"a": 2}


def test_response_cache_roundtrip_and_persistence(tmp_path):
    key = request_key({"model": "m", "messages": [1, 2], "attempt": 0})
    assert key != request_key({"model": "m", "messages": [1, 2], "attempt": 1})
    cache = ResponseCache(tmp_path / "c.sqlite")
    assert cache.get(key) is None
    cache.put(key, '{"choice": "A"}')
    cache.close()
    again = ResponseCache(tmp_path / "c.sqlite")
    assert again.get(key) == '{"choice": "A"}' and again.hits == 1


def test_signature_mismatch_names_the_fields(tmp_path):
    check_or_write_signature(tmp_path, {"judge_model": "a", "seed": 0})
    check_or_write_signature(tmp_path, {"judge_model": "a", "seed": 0})
    with pytest.raises(RunConfigError, match="judge_model: stored 'a', now 'b'"):
        check_or_write_signature(tmp_path, {"judge_model": "b", "seed": 0})


def test_cache_keys_are_the_digest_of_the_text_earlier_caches_were_keyed_by():
    import hashlib
    import json

    parts = {
        "request": {"model": "j", "messages": [{"role": "user", "content": "Ü\u2028?"}], "t": 0.5},
        "attempt": 2,
    }
    text = json.dumps(parts, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    assert request_key(parts) == hashlib.sha256(text.encode("utf-8")).hexdigest()
