"""Adapter, judge and profile hooks are part of their types: every adapter class derives the
declared hooks with their defaults (`adapters/base.AdapterHooks`), the judge a scorer is handed
declares `prepare` (`scoring/judged.JudgeGenerate`), a profile's hooks are `TextProfile`
fields read by a typed accessor, and no module of the package looks one up by name."""

from __future__ import annotations

import ast
import asyncio
import dataclasses
import importlib
from pathlib import Path
from typing import Any

from audioeval.adapters.base import AdapterHooks, ModelAdapter
from audioeval.core.generation import Generation
from audioeval.scoring.judged import BareJudge, JudgeGenerate
from audioeval.scoring.profiles import TextProfile, profile_hook

PKG = Path(__file__).resolve().parents[1] / "src" / "audioeval"


def _hook_names() -> set[str]:
    """The optional hooks of adapters (beside `generate` and its lifetime), of the judge a
    scorer is handed, and of profiles."""
    adapter = {n for n in vars(AdapterHooks) if not n.startswith("_")} | set(AdapterHooks.__annotations__)
    judge = {n for n in vars(JudgeGenerate) if not n.startswith("_")}
    profile = {f.name for f in dataclasses.fields(TextProfile)} - {"name", "description"}
    return adapter | judge | profile


def _module(path: Path) -> str:
    return ".".join(path.relative_to(PKG.parent).with_suffix("").parts)


def _adapter_classes() -> list[type]:
    """Every class of the package with an `async def generate(self, request…)` and the rest of
    a model's interface (`signature`, `start`, `aclose`), the protocol itself aside: a model
    under test, found in the code (not listed by hand)."""
    found = []
    for path in sorted(PKG.rglob("*.py")):
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            if not isinstance(node, ast.ClassDef):
                continue
            for item in node.body:
                if (
                    isinstance(item, ast.AsyncFunctionDef)
                    and item.name == "generate"
                    and [a.arg for a in item.args.args[:2]] == ["self", "request"]
                ):
                    found.append(getattr(importlib.import_module(_module(path)), node.name))
    lifetime = ("signature", "start", "aclose")
    return [
        c
        for c in found
        if not getattr(c, "_is_protocol", False) and all(callable(getattr(c, m, None)) for m in lifetime)
    ]


def test_the_hooks_are_declared_on_the_types() -> None:
    assert {"tasks", "api", "input_errors"} <= _hook_names()
    assert "prepare" in _hook_names()
    assert {"wer_tokens", "tts_text", "bleu_tokenizer", "accuracy_match"} <= _hook_names()
    members = set(ModelAdapter.__annotations__) | {n for n in vars(ModelAdapter) if not n.startswith("_")}
    assert {"tasks", "api", "input_errors"} <= members


def test_every_adapter_class_derives_the_declared_hooks() -> None:
    classes = _adapter_classes()
    names = {c.__name__ for c in classes}
    assert {"Baseline", "PredictionsFile", "OpenAIChatModel", "LocalRuntimeAdapter", "Replay"} <= names
    assert {"RealtimeModel", "RayRuntimeAdapter", "EspeakTts", "CodecModel"} <= names
    missing = [c.__name__ for c in classes if not issubclass(c, AdapterHooks)]
    assert not missing, f"adapters without the declared hooks (AdapterHooks): {missing}"


def test_no_adapter_judge_or_profile_hook_is_looked_up_by_name() -> None:
    hooks = _hook_names()
    found: list[str] = []
    for path in sorted(PKG.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)) or len(node.args) < 2:
                continue
            attr = node.args[1]
            named = isinstance(attr, ast.Constant) and isinstance(attr.value, str)
            if node.func.id in {"getattr", "hasattr"} and named and attr.value in hooks:
                found.append(f"{path.relative_to(PKG)}:{node.lineno} {node.func.id}(…, {attr.value!r})")
            if node.func.id == "profile_hook" and named:  # a profile hook named by a string
                found.append(f"{path.relative_to(PKG)}:{node.lineno} profile_hook(…, {attr.value!r})")
    assert not found, "hooks looked up by name:\n" + "\n".join(found)


def test_a_profile_hook_is_read_through_its_typed_field() -> None:
    def tokens(text: str, unit: str, language: str) -> list[str]:
        return text.split()

    profile = TextProfile("typed-hooks-test", "a test profile", wer_tokens=tokens)
    from audioeval.scoring.profiles import PROFILES

    PROFILES.register(profile.name, profile)
    try:
        assert profile_hook(profile.name, lambda p: p.wer_tokens, "wer") is tokens
        assert profile_hook("audioeval", lambda p: p.wer_tokens, "wer") is None
        try:
            profile_hook(profile.name, lambda p: p.bleu_tokenizer, "bleu")
        except ValueError as exc:
            assert "'typed-hooks-test' has no rule for bleu" in str(exc)
        else:
            raise AssertionError("a profile without the hook was accepted")
    finally:
        del PROFILES[profile.name]


def test_a_bare_judge_call_is_a_judge_with_nothing_to_prepare() -> None:
    asked: list[tuple[Any, ...]] = []

    async def call(messages: Any, attempt: int, accept: Any = None, extra: Any = None) -> Generation:
        asked.append((messages, attempt, accept, extra))
        return Generation("yes")

    judge = BareJudge(call)

    async def main() -> Generation:
        assert await judge.prepare([]) is None
        return await judge([], 2)

    assert asyncio.run(main()).text == "yes" and asked == [([], 2, None, None)]
