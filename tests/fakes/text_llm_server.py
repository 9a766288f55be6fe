"""A fake OpenAI-compatible text LLM for `rubric decompose`: decomposition and cleaning.

It is not a model. A request whose user turn lists "Questions:" is a cleaning request: each
numbered question is kept when its claim (the question without "Is it true that … ?" or
"是否 … ？") is a phrase of the caption, else removed. Any other request is a decomposition:
one item per clause of the caption (split at commas, full stops and semicolons), plus an
item the caption never mentions and a duplicate of the first item (so cleaning and
deduplication have work); Chinese captions get Chinese keys (维度 / 题目 / 依据 under
判断题列表). Under `auto` (the system prompt asks for a "domain") it names `auto_domain`.

Faults, by request order or by caption: broken JSON (cut before any complete item) or empty
answers on the first decomposition requests, garbage for every decomposition (of every
caption, or of a caption holding a marker), every item removed for a caption holding another, repairable but messy JSON
(fence, curly quotes, bare keys, trailing commas), or answers cut off after two items.
"""

from __future__ import annotations

import json
import re
import threading
from dataclasses import dataclass, field
from typing import Any

from tests.fakes.openai_http import FakeServer, JsonHandler, completion

CLAUSE_RE = re.compile(r"[,.;，。；]")
QUESTION_RE = re.compile(r"^\d+\. (?:\[[^\]]*\] )?(.*)$", re.M)
CJK_RE = re.compile(r"[\u4e00-\u9fff]")
INVENTED = {"dimension": "extra", "question": "Is there a dog barking?", "basis": ""}


@dataclass
class FakeTextLlmConfig:
    model: str = "fake-text-llm"
    broken_first: int = 0  # the first N decomposition requests: JSON cut before any item
    empty_first: int = 0  # the first N decomposition requests: an empty answer
    garbage: bool = False  # every decomposition is garbage
    garbage_when: str | None = None  # captions holding this text: every decomposition is garbage
    remove_all_when: str | None = None  # captions holding this text: cleaning removes every item
    messy: bool = False  # repairable JSON: fence, curly quotes, bare keys, trailing commas
    cut_after_two: bool = False  # decompositions cut off after their second item
    auto_domain: str = "sound"


@dataclass
class FakeTextLlmStats:
    requests: int = 0
    decompose_requests: int = 0
    clean_requests: int = 0
    captions: list[str] = field(default_factory=list)  # the caption of each decomposition request
    bodies: list[dict[str, Any]] = field(default_factory=list)  # each request less its messages


def _text(message: dict[str, Any]) -> str:
    content = message["content"]
    if isinstance(content, str):
        return content
    return "".join(p["text"] for p in content if p.get("type") == "text")


def _claim(question: str) -> str:
    return question.removeprefix("Is it true that ").removeprefix("是否").rstrip("?？").strip()


def decompose_items(caption: str) -> list[dict[str, str]]:
    """The items this fake makes of a caption: one per clause, in order."""
    chinese = bool(CJK_RE.search(caption))
    clauses = [c.strip() for c in CLAUSE_RE.split(caption) if c.strip()]
    return [
        {
            "dimension": f"方面{i}" if chinese else f"aspect {i}",
            "question": f"是否{c}？" if chinese else f"Is it true that {c}?",
            "basis": c,
        }
        for i, c in enumerate(clauses, start=1)
    ]


class FakeTextLlm:
    def __init__(self, config: FakeTextLlmConfig) -> None:
        self.config = config
        self.stats = FakeTextLlmStats()
        self.lock = threading.Lock()

    @property
    def served_models(self) -> list[str]:
        return [self.config.model]

    def answer(self, body: dict[str, Any]) -> str:
        system = "".join(_text(m) for m in body["messages"] if m["role"] == "system")
        user = _text([m for m in body["messages"] if m["role"] == "user"][-1])
        caption = user.removeprefix("Caption:\n").split("\n\nQuestions:\n", 1)[0]
        if "\n\nQuestions:\n" in user:
            with self.lock:
                self.stats.clean_requests += 1
            return self._clean(caption, user.split("\n\nQuestions:\n", 1)[1])
        with self.lock:
            self.stats.decompose_requests += 1
            self.stats.captions.append(caption)
            n = self.stats.decompose_requests
        return self._decompose(caption, '"domain"' in system, n)

    def _decompose(self, caption: str, auto: bool, n: int) -> str:
        cfg = self.config
        if n <= cfg.empty_first:
            return ""
        if n <= cfg.empty_first + cfg.broken_first:
            return '```json\n{"items": [{"dimension": "pitch", "question": "Is the voi'
        if cfg.garbage or (cfg.garbage_when and cfg.garbage_when in caption):
            return "I am sorry, I cannot break this caption into questions."
        items = decompose_items(caption)
        items = [*items, INVENTED, {**items[0], "question": items[0]["question"].upper()}]
        chinese = bool(CJK_RE.search(caption))
        if chinese:
            items = [{"维度": i["dimension"], "题目": i["question"], "依据": i["basis"]} for i in items]
        answer: dict[str, Any] = {"domain": cfg.auto_domain} if auto else {}
        answer["判断题列表" if chinese else "items"] = items
        text = json.dumps(answer, ensure_ascii=False)
        if cfg.cut_after_two:
            return _cut_after(text, 2)
        return _messy(answer) if cfg.messy else text

    def _clean(self, caption: str, listed: str) -> str:
        questions = QUESTION_RE.findall(listed)
        remove_all = bool(self.config.remove_all_when and self.config.remove_all_when in caption)
        results = [
            {
                "id": i,
                "judgment": "keep" if not remove_all and _claim(q).lower() in caption.lower() else "remove",
            }
            for i, q in enumerate(questions, start=1)
        ]
        return json.dumps({"results": results})


def _cut_after(text: str, items: int) -> str:
    """The text cut a few characters into the item after the first `items` ones."""
    end = -1
    for _ in range(items):
        end = text.index("}", end + 1)
    return text[: end + 12]


def _messy(answer: dict[str, Any]) -> str:
    """The answer as a careless model writes it: a fence, bare keys, curly quotes, trailing commas."""

    def item(entry: dict[str, str]) -> str:
        return "{" + " ".join(f"{k}: “{v}”," for k, v in entry.items()) + "}"

    domain = f"domain: “{answer['domain']}”, " if "domain" in answer else ""
    key = next(k for k in answer if k != "domain")
    listed = ", ".join(item(e) for e in answer[key])
    return f"Here are the questions:\n```json\n{{{domain}{key}: [{listed},],}}\n```"


class _Handler(JsonHandler):
    def do_POST(self) -> None:
        fake: FakeTextLlm = self.server.app
        body = self.read_json()
        if body is None:
            return
        with fake.lock:
            fake.stats.requests += 1
            n = fake.stats.requests
            fake.stats.bodies.append({k: v for k, v in body.items() if k != "messages"})
        if not self.path.endswith("/chat/completions"):
            self.send_json(404, {"error": {"message": f"no route {self.path}"}})
            return
        if body.get("model") != fake.config.model:
            self.send_json(404, {"error": {"message": f"The model `{body.get('model')}` does not exist."}})
            return
        if not isinstance(body.get("messages"), list) or not body["messages"]:
            self.send_json(400, {"error": {"message": "messages must be a non-empty list"}})
            return
        self.send_json(200, completion(n, body["model"], fake.answer(body)))


class FakeTextLlmServer(FakeServer):
    """`with FakeTextLlmServer(FakeTextLlmConfig()) as s: s.base_url` serves on 127.0.0.1."""

    def __init__(self, config: FakeTextLlmConfig | None = None) -> None:
        self.fake = FakeTextLlm(config or FakeTextLlmConfig())
        super().__init__(_Handler, self.fake)

    @property
    def stats(self) -> FakeTextLlmStats:
        return self.fake.stats
