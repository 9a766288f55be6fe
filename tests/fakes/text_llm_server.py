"""A fake OpenAI-compatible text LLM for `rubric decompose`: decomposition and cleaning.

It is not a model. A request whose user turn lists "Questions:" is a cleaning request: each
numbered question is kept when its claim (the question without "Is it true that … ?" or
"是否 … ？") is a phrase of the caption, else removed. Any other request is a decomposition:
one item per clause of the caption (split at commas, full stops and semicolons), plus an
item the caption never mentions and a duplicate of the first item (so cleaning and
deduplication have work); English captions get the English keys the official reader takes
(Dimension / Question / Basis under Question_List), Chinese captions the Chinese ones
(维度 / 题目 / 依据 under 判断题列表); cleaning ids count from 0. Under `auto` (the system prompt
asks for a "domain") it names `auto_domain`.

Faults, by request order or by caption: an HTTP 400 (a failed call: no answer), broken JSON
(cut before any complete item) or empty answers on the first decomposition requests; an HTTP
400 or garbage for every decomposition (of every caption, or of a caption holding a
marker); every item removed for a caption holding another; repairable but messy JSON
(fence, curly quotes inside a value, a trailing comma), or answers cut off after two items.
The cleaning reads a question's claim without straight quotes, so a curly-quoted word the
official reader turned into straight quotes still matches the caption.
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
    http_error_first: int = 0  # the first N decomposition requests: HTTP 400, no answer
    broken_first: int = 0  # then the next N (after the empty ones): JSON cut before any item
    empty_first: int = 0  # the first N decomposition requests: an empty answer
    garbage: bool = False  # every decomposition is garbage
    garbage_when: str | None = None  # captions holding this text: every decomposition is garbage
    http_error: bool = False  # every decomposition request answered HTTP 400
    http_error_when: str | None = None  # captions holding this text: every decomposition HTTP 400
    remove_all_when: str | None = None  # captions holding this text: cleaning removes every item
    messy: bool = False  # repairable JSON: fence, curly quotes inside a value, a trailing comma
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
    plain = question.replace('"', "")
    return plain.removeprefix("Is it true that ").removeprefix("是否").rstrip("?？").strip()


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

    def answer(self, body: dict[str, Any]) -> str | None:
        """The answer's text; None: the request fails (HTTP 400)."""
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

    def _decompose(self, caption: str, auto: bool, n: int) -> str | None:
        cfg = self.config
        if n <= cfg.http_error_first or cfg.http_error:
            return None
        if cfg.http_error_when is not None and cfg.http_error_when in caption:
            return None
        n -= cfg.http_error_first
        if n <= cfg.empty_first:
            return ""
        if n <= cfg.empty_first + cfg.broken_first:
            return '```json\n{"items": [{"dimension": "pitch", "question": "Is the voi'
        if cfg.garbage or (cfg.garbage_when and cfg.garbage_when in caption):
            return "I am sorry, I cannot break this caption into questions."
        items = decompose_items(caption)
        items = [*items, INVENTED, {**items[0], "question": items[0]["question"].upper()}]
        chinese = bool(CJK_RE.search(caption))
        keys = ("维度", "题目", "依据") if chinese else ("Dimension", "Question", "Basis")
        items = [dict(zip(keys, (i["dimension"], i["question"], i["basis"]), strict=True)) for i in items]
        answer: dict[str, Any] = {"domain": cfg.auto_domain} if auto else {}
        answer["判断题列表" if chinese else "Question_List"] = items
        text = json.dumps(answer, ensure_ascii=False)
        if cfg.cut_after_two:  # indented as the official prompt's example: items at 8 spaces
            return _cut_after(json.dumps(answer, ensure_ascii=False, indent=4), 2)
        return _messy(answer) if cfg.messy else text

    def _clean(self, caption: str, listed: str) -> str:
        questions = QUESTION_RE.findall(listed)
        remove_all = bool(self.config.remove_all_when and self.config.remove_all_when in caption)
        results = [
            {
                "id": i,
                "judgment": "keep" if not remove_all and _claim(q).lower() in caption.lower() else "remove",
            }
            for i, q in enumerate(questions)
        ]
        return json.dumps({"results": results})


def _cut_after(text: str, items: int) -> str:
    """The text cut a few characters into the item after the first `items` ones."""
    end = -1
    for _ in range(items):
        end = text.index("}", end + 1)
    return text[: end + 12]


def _messy(answer: dict[str, Any]) -> str:
    """The answer as a careless model writes it, within what the official reader repairs: a
    fence, curly quotes inside a value, a trailing comma."""
    text = json.dumps(answer, ensure_ascii=False, indent=4).replace("\n    ]", ",\n    ]", 1)
    return "```json\n" + text.replace("Is it true that", "Is it “true” that") + "\n```"


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
        text = fake.answer(body)
        if text is None:
            self.send_json(400, {"error": {"message": "prompt too long for the context window"}})
            return
        self.send_json(200, completion(n, body["model"], text, body))


class FakeTextLlmServer(FakeServer):
    """`with FakeTextLlmServer(FakeTextLlmConfig()) as s: s.base_url` serves on 127.0.0.1."""

    def __init__(self, config: FakeTextLlmConfig | None = None) -> None:
        self.fake = FakeTextLlm(config or FakeTextLlmConfig())
        super().__init__(_Handler, self.fake)

    @property
    def stats(self) -> FakeTextLlmStats:
        return self.fake.stats
