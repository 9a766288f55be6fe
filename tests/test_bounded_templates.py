"""One bounded renderer for every prompt template: a macro that calls itself, loops whose
product is huge, and a Python error inside a template are each one template error naming
the template, the line and the expression, at every call site that renders a template.

The call sites are found in the package's code (whatever imports the renderer of
`prompts/templates.py`); each has a driver below that renders the same bad templates there."""

from __future__ import annotations

import ast
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from audioeval.cli import exit_codes
from audioeval.cli.main import app
from audioeval.core.errors import InputError
from audioeval.core.messages import AudioRef
from audioeval.prompts.templates import (
    MAX_CALL_DEPTH,
    MAX_TEMPLATE_STEPS,
    PromptTemplate,
    RenderedTexts,
    render,
    render_text,
)
from tests.run_helpers import tone_asr_manifest

runner = CliRunner()
PKG = Path(__file__).resolve().parents[1] / "src" / "audioeval"
RENDERER = "audioeval.prompts.templates"
ENTRY_POINTS = {"render", "render_text", "RenderedTexts"}

BAD = {
    "macro calling itself": ("{% macro f() %}{{ f() }}{{ f() }}{% endmacro %}{{ f() }}", f"more than {MAX_CALL_DEPTH} deep"),
    "two loops under the range cap": (
        "{% for i in range(99999) %}{% for j in range(99999) %}{% endfor %}{% endfor %}x",
        f"more than {MAX_TEMPLATE_STEPS:,} steps",
    ),
    "a Python error": ("first line\n{{ 1 // 0 }}", "line 2: ZeroDivisionError: integer division or modulo by zero in `{{ 1 // 0 }}`"),
    "a type error": ("{{ 'a' + 1 }}", "line 1: TypeError"),
}  # fmt: skip


def _bad(text: str) -> PromptTemplate:
    return PromptTemplate("bad", text, source="bad.yaml")


# --- every call site, found in the code --------------------------------------------------


def _call_sites() -> set[str]:
    """The modules that import a rendering entry point of prompts/templates.py."""
    found = set()
    for path in PKG.rglob("*.py"):
        rel = path.relative_to(PKG).as_posix()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module == RENDERER:
                if {a.name for a in node.names} & ENTRY_POINTS:
                    found.add(rel)
    return found


def test_no_module_but_the_renderer_uses_jinja2() -> None:
    users = []
    for path in PKG.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else []
            module = node.module if isinstance(node, ast.ImportFrom) else None
            if any(n.split(".")[0] == "jinja2" for n in names) or (module or "").split(".")[0] == "jinja2":
                users.append(path.relative_to(PKG).as_posix())
    # the report's page is audioeval's own template (values are passed in, escaped, never
    # compiled as templates): the renderer of user templates is the only other user
    assert set(users) == {"prompts/templates.py", "report/html_page.py"}


def _sample_pipeline(template: PromptTemplate) -> Any:
    from types import SimpleNamespace

    from audioeval.core.sample import Sample
    from audioeval.engine.sample_pipeline import build_messages

    bench = SimpleNamespace(spec=SimpleNamespace(variables={}), template_for=lambda name: template)
    return build_messages(bench, Sample("s1", fields={"text": "x"}), None, RenderedTexts())  # type: ignore[arg-type]


def _judged(template: PromptTemplate, tmp: Path) -> Any:
    from audioeval.benchmarks.plugins import load_benchmarks
    from audioeval.scoring.judged import load_judge_prompt
    from audioeval.scoring.scorer_registry import build_scorer

    load_benchmarks()
    path = tmp / "judge.yaml"
    path.write_text("name: bad\nuser: |\n" + "".join(f"  {x}\n" for x in template.user.splitlines()))
    return load_judge_prompt(str(path), build_scorer("qa_judge", where="test"))


def _mcq_predict(template: PromptTemplate, monkeypatch: pytest.MonkeyPatch) -> Any:
    from types import SimpleNamespace

    import audioeval.prompts.templates as templates
    from audioeval.benchmarks.mcq import predict_preset
    from audioeval.core.sample import Sample

    spec = SimpleNamespace(prompt="the spec's template", task="mcq", variables={})
    monkeypatch.setattr(templates, "load_template", lambda name: template)
    samples = SimpleNamespace(samples=[Sample("s1", fields={"question": "q"})])
    return predict_preset._check_prompts(spec, "w", samples)


def _mcq_rubrics(template: PromptTemplate) -> Any:
    from audioeval.benchmarks.mcq.rubric_prompt import build_rubric_messages

    return build_rubric_messages(
        question="q", answer="a", reference="r", rubric=[], thinking=None, prediction="p", template=template
    )


def _mmae(template: PromptTemplate) -> Any:
    from audioeval.benchmarks.mmae.judge_prompt import build_judge_messages
    from audioeval.judge.option_shuffle import shuffle_options

    return build_judge_messages("q", shuffle_options("a", ["b"], seed=0), [], template)


def _decompose(template: PromptTemplate) -> Any:
    from audioeval.benchmarks.rubric_items.decompose_prompts import clean_messages, decompose_messages

    for call in (
        lambda: decompose_messages("a dog", "sound", template),
        lambda: clean_messages("a dog", [("d", "q")], template),
    ):
        with pytest.raises(InputError):
            call()
    return decompose_messages("a dog", "sound", template)


def _answer_judge(template: PromptTemplate) -> Any:
    from audioeval.benchmarks.plugins import load_benchmarks
    from audioeval.core.sample import Sample
    from audioeval.scoring.scorer_registry import build_scorer

    load_benchmarks()
    judge = build_scorer("qa_judge", where="test")
    judge.template = template
    return judge.messages(
        Sample("s1", fields={"question": "q", "reference": "r", "answer": "r"}), "cand", judge.views[0]
    )


def _rubric_items(template: PromptTemplate) -> Any:
    from audioeval.judge.rubric_items import all_items_messages, item_messages

    item = {"dimension": "d", "question": "q", "basis": "b"}
    with pytest.raises(InputError):
        all_items_messages(AudioRef("a.wav"), [item], template)
    return item_messages(AudioRef("a.wav"), item, template)


DRIVERS: dict[str, Callable[..., Any]] = {
    "engine/sample_pipeline.py": _sample_pipeline,
    "scoring/judged.py": _judged,
    "benchmarks/mcq/predict_preset.py": _mcq_predict,
    "benchmarks/mcq/rubric_prompt.py": _mcq_rubrics,
    "benchmarks/mmae/judge_prompt.py": _mmae,
    "benchmarks/rubric_items/decompose_prompts.py": _decompose,
    "judge/answer_judge.py": _answer_judge,
    "judge/rubric_items.py": _rubric_items,
}


def test_every_call_site_has_a_driver() -> None:
    assert _call_sites() == set(DRIVERS)


@pytest.mark.parametrize("case", list(BAD))
@pytest.mark.parametrize("site", sorted(DRIVERS))
def test_every_call_site_reports_a_bad_template_as_a_template_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, site: str, case: str
) -> None:
    text, expected = BAD[case]
    driver = DRIVERS[site]
    extra = {"scoring/judged.py": (tmp_path,), "benchmarks/mcq/predict_preset.py": (monkeypatch,)}
    with pytest.raises(InputError) as err:
        driver(_bad(text), *extra.get(site, ()))
    said = str(err.value)
    assert expected in said, said
    assert ("bad.yaml" in said or "judge.yaml" in said) and ("field 'user'" in said), said


# --- the renderer's three entry points -----------------------------------------------------


@pytest.mark.parametrize("case", list(BAD))
def test_each_entry_point_bounds_the_same_templates(case: str) -> None:
    text, expected = BAD[case]
    assert expected in (render_text(text, {}) or "")
    with pytest.raises(InputError, match="could not be rendered"):
        render(_bad(text), {}, sample_id="s1")
    with pytest.raises(Exception) as err:
        RenderedTexts().render(text, {})
    assert expected in str(err.value)


def test_good_templates_still_render_loops_macros_and_recursion() -> None:
    text = (
        "{% macro item(i, c) %}{{ i }}. {{ c }}{% endmacro %}"
        "{% for c in choices %}{{ item(loop.index, c) }};{% endfor %}"
        "{% for x in [[1, [2]], [3]] recursive %}{% if x is iterable %}{{ loop(x) }}{% else %}{{ x }}{% endif %}{% endfor %}"
    )  # fmt: skip
    assert render_text(text, {"choices": ["a", "b"]}) is None
    (user,) = render(_bad(text), {"choices": ["a", "b"]})
    assert user.parts[0].text == "1. a;2. b;123"  # type: ignore[union-attr]


# --- through the command line: a sample fails with kind `prompt`, the others are scored ----


def test_run_with_a_bad_prompt_fails_each_sample_naming_template_line_and_expression(tmp_path: Path) -> None:
    import json

    manifest = tone_asr_manifest(tmp_path / "set", n=2)
    template = tmp_path / "prompt.yaml"
    template.write_text("name: p\nuser: |\n  Transcribe.\n  {{ 1 // 0 }}\n")
    spec = tmp_path / "spec.yaml"
    spec.write_text(f"name: t\ntask: asr\nprompt: {template}\nsource:\n  type: jsonl\n  path: {manifest}\n")
    res = runner.invoke(
        app, ["run", "-b", str(spec), "-m", "oracle", "-o", str(tmp_path / "o"), "--no-progress"]
    )
    assert res.exit_code == exit_codes.TOO_MANY_FAILURES, res.output
    assert "Traceback" not in res.output
    records = [json.loads(x) for x in next((tmp_path / "o").rglob("records.jsonl")).read_text().splitlines()]
    assert len(records) == 2 and all(r["failure"] == "prompt" for r in records)
    assert all("line 2: ZeroDivisionError" in r["error"] and "{{ 1 // 0 }}" in r["error"] for r in records)
    assert all("prompt.yaml" in r["error"] for r in records)
