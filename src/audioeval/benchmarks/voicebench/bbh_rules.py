"""The answer-reading rules of VoiceBench's BBH evaluator (`src/evaluator/bbh.py`), as data.

One ordered rule list per BBH task; the first rule that fires gives the answer: 0 (no / (A))
or 1 (yes / (B)). A rule is (kind, pattern, answer) with kind `in` (substring), `re` (regular
expression search), `eq` (the whole reply), `starts` or `ends`. Paired rules are written once
with `{x}` and expanded in order, the first word reading 0 and the second 1 (`(a)`, `(b)`;
`no`, `yes`). The order and the quirks are VoiceBench's (see `bbh_match`).
"""

from __future__ import annotations

from collections.abc import Iterable

Rule = tuple[str, str, int]


def _pairs(templates: Iterable[str], words: tuple[str, str] = ("a", "b"), kind: str = "in") -> list[Rule]:
    """Each template twice, in order: `{x}` as the first word (answer 0), then the second (1)."""
    return [(kind, t.replace("{x}", w), answer) for t in templates for answer, w in enumerate(words)]


def _all(kind: str, answer: int, patterns: Iterable[str]) -> list[Rule]:
    return [(kind, p, answer) for p in patterns]


YES_NO: tuple[Rule, ...] = (
    *_pairs(
        (
            "answer is {x}",
            "the answer {x}",
            "final answer {x}",
            "i would answer {x}",
            "the answer is without any modification {x}",
            "the answer to the question is {x}",
        ),
        ("no", "yes"),
    ),
    *_pairs(
        (
            "the answer is {x}",
            "answer {x}",
            "the answer is $\\boxed{\\text{{x}}}$",
        ),
        ("false", "true"),
    ),
    *_pairs(("the answer is \\boxed{{x}}",), ("no", "yes")),
    *_pairs(("the answer is \\boxed{\\text{{x}}}",), ("false", "true")),
    *_pairs(
        (
            "the answer is \\boxed{\\text{{x}}}",
            "i will provide the answer as {x}",
            "prefix answer {x}",
            "conclusion {x}",
        ),
        ("no", "yes"),
    ),
)
"""Read first for the yes/no tasks (navigate, sports understanding, web of lies)."""

_YES_NO_ENDINGS: tuple[Rule, ...] = (
    ("starts", "no", 0),
    ("starts", "yes", 1),
    ("ends", "no", 0),
    ("ends", "yes", 1),
)

HYPERBATON: tuple[Rule, ...] = (
    ("eq", "a", 0),
    ("eq", "b", 0),  # sic: VoiceBench reads a bare "b" as (A)
    *_pairs(
        (
            "the answer is ({x})",
            "the correct adjective order is option ({x})",
            "the correct grammatical order is {x}",
            "the correct sentence is option ({x})",
            "the sentence with the correct adjectives is {x}",
            "correct adjective order options is {x}",
            "the correct answer is ({x})",
            "the correct option is ({x})",
            "the correct order of adjectives in the sentence is option {x}",
            "the correct sentence would be option ({x})",
            "the correct sentence is ({x})",
            "the proper adjective order is {x}",
            "the correct adjective order is ({x})",
            "correct adjective order is {x}",
            "the adjectives in option {x} are in the correct order",
            "the right adjective order is {x})",
            "the correct adjectivs is ({x})",
            "the right adjective order is ({x})",
            "correct adjectival order is {x}",
            "the proper adjective order is ({x})",
            "the correct sentence order is {x}",
            "option {x} correctly follows the standard adjective order",
            "the answer directly is {x}",
            "the correct order would be option {x}",
            "final answer should be {x}",
            "final answer {x}",
            "option ({x}) uses the correct adjective sequence",
            "the correct option is option {x}",
            "the answer is without any modification {x}",
            "the correct one is option {x}",
            "answer is without any modification {x}",
            "the answer is without any modification option {x}",
            "answer is {x}",
            "the answer is [{x}]",
            "option {x} follows the correct adjective order",
            "the correct order of adjectives is {x}",
            "option ({x}) is the correct answer",
            "the correct order is {x}",
            "the correct object order is {x}",
            "the correct answer order is {x}",
            "the final answer without any modification is {x}",
            "the correct sentence is {x}",
            "correct adjective order option is {x}",
            "correct adjective order is sentence {x}",
            "correct objective order option is {x}",
            "the answer is is {x}",
            "the correct adjective order is option {x}",
            "the correct adjective order is provided in option {x}",
            "option {x} is more accurate",
            "answer is option {x}",
            "option {x} has the adjectives in the correct order",
            "option {x} is closer to being correct",
            "the most logical order is option {x}",
            "in option {x} the adjectives are in the correct order",
            "sentence {x} is the closest to the correct adjective order",
            "option {x} has the correct order",
            "sentence {x} has a more logical",
            "the closest correct order is option {x}",
            "sentence {x} has the correct adjective order",
            "option {x} is the closest to the typical order",
            "the correct answer would be option {x}",
            "the correct option is {x}",
            "option {x} has a better adjective order",
            "option {x} has the correct adjective order",
            "option {x} seems to follow the typical order",
            "the correct order is found in option {x}",
        )
    ),
    ("in", "the correct adjective order is in the first option", 0),
    ("in", "the correct adjective order is in the second option", 1),
    *_pairs(
        (
            "the correct adverb order would be {x}",
            "the correct answer would be the {x}",
            "the correct adjective order is in option {x}",
            "the correct adjective order is in sentence {x}",
            "the adjectives are in the correct order for {x}",
            "the answer is [option {x}]",
            "option ({x}) has a correct adjective order",
            "the correct sentence would be {x}",
            "option {x} follows the correct sequence of adjectives",
            "option {x} would be closer to the correct order",
            "the correct sentence with the adjective order is {x}",
            "option {x} is more grammatically correct",
            "option {x} would be more correct",
        )
    ),
    ("in", "option a is incorrect and option b is correct", 1),
    *_pairs(("option {x} is the closest match",)),
    ("in", "option b follows the typical order of adjectives", 1),
    *_pairs(
        (
            "the correct sentence with the adjective order is option {x}",
            "the correct sentence is option {x}",
            "the correct objective order is in option {x}",
            "the answer is option ({x})",
            "the correct option would be ({x})",
            "the correct order is in option {x}",
            "the correct adjective order is found in option {x}",
            "option ({x}) follows the typical order of adjectives",
            "option ({x}) has the correct adjective order",
            "option ({x}) follows the general adjective order",
            "option ({x}) would be more grammatically correct",
            "option {x} is the correct",
            "option {x} has the correct word order",
            "option {x} follows the correct order",
        )
    ),
    ("in", "following the typical order is the first option", 0),
    ("in", "following the typical order is the second option", 1),
    *_pairs(
        (
            "option {x} has a slightly better chance of being correct",
            "the answer is sentence {x}",
            "the final answer is ({x})",
        )
    ),
    *_pairs(
        (
            "sentence {x} (.+?) seems to have a more logical",
            "the correct adjective order is (.+?) option {x}",
        ),
        kind="re",
    ),
    *_pairs(("{x} ", "{x})"), kind="starts"),
)

WEB_OF_LIES: tuple[Rule, ...] = (
    *YES_NO,
    *_all(
        "in",
        0,
        ("the prefix no applies to the statement", "veena s statement cannot be true"),
    ),
    *_all(
        "in",
        1,
        (
            "therefore truly lorene tells the truth",
            "the answer is the truth",
            "affirmatively alejandro tells the truth",
        ),
    ),
    *_all(
        "re",
        0,
        (
            "answer is (.+?) tells a lie",
            "answer is (.+?) lies",
            "answer is (.+?) says lie",
            "answer is (.+?) doesn t tell the truth",
            "answer is (.+?) does not tell the truth",
            "answer is (.+?) didn t tell the truth",
        ),
    ),
    *_all("re", 1, ("answer is (.+?) tells the truth", "answer is (.+?) does tell the truth")),
    ("re", "answer to the question (.+?) is no", 0),
    ("re", "answer to the question (.+?) is yes", 1),
    ("re", "from the above steps we can conclude that (.+?) tells the truth", 1),
    *_all("ends", 0, ("does not tell the truth", "cannot be telling the truth", "is lying", "tells the lie")),
    ("ends", "is also telling the truth", 1),
    ("ends", "must be lying", 1),  # sic
    *_all(
        "ends",
        1,
        (
            "must be telling the truth",
            "tells the truth",
            "delfina does tell the truth",
            "osvaldo is telling the truth",
        ),
    ),
    ("ends", "lies", 0),
    *_YES_NO_ENDINGS,
)

_NAVIGATE_PHRASES: tuple[tuple[str, int], ...] = (
    ("you do not return to the starting point", 0),
    ("you are not at the starting point", 0),
    ("you haven t moved back to the starting point", 0),
    ("you cannot return to the starting point", 0),
    ("you return to the starting point", 1),
    ("you are not facing the starting point", 0),
    ("you haven t returned to the starting point", 0),
    ("you end up back at the starting point", 1),
    ("you are not back at the starting point", 0),
    ("you will not return to the starting point", 0),
    ("yes following these instructions", 1),
    ("we end up back at the starting point", 1),
    ("indeed returns us to the starting point", 1),
    ("indeed bring us back to the starting point", 1),
    ("you ll end up right back where you started", 1),
    ("we ve now returned to the starting point", 1),
    ("i have returned to the starting position", 1),
    ("the final position is not directly at the starting point", 0),
    ("it appears that we did not return to the exact starting point", 0),
    ("does not return us to the starting point", 0),
    ("i will end up back where i started", 1),
    ("indeed return to the starting point", 1),
    ("i ll be back where i started", 1),
    ("i ll end up back at the starting point", 1),
    ("after following these instructions we return to the starting point", 1),
    ("we are back at the starting point!", 1),
    ("we are now back at the starting point", 1),
    ("you ll end up back where you started", 1),
    ("we have now returned to the starting point", 1),
    ("i ve returned to the starting point", 1),
    ("following these instructions will always return us to the starting point", 1),
    ("indeed return you to the starting point", 1),
    ("the answer is the starting point", 1),
    ("following these instructions doesn t return us to the starting point", 0),
    ("following these directions does not lead you back to your original starting point", 0),
)

NAVIGATE: tuple[Rule, ...] = (
    *YES_NO,
    *(("in", p, a) for p, a in _NAVIGATE_PHRASES),
    *_YES_NO_ENDINGS,
)

_SPORTS_PHRASES: tuple[tuple[str, int], ...] = (
    ("final answer the sentence is plausible", 1),
    ("the answer is directly yes", 1),
    ("no the sentence is not possible", 0),
    ("the answer is it is not possible", 0),
    ("the answer is the sentence is plausible", 1),
    ("the sentence is not particularly plausible", 0),
    ("the sentence is not plausible", 0),
    ("yes the sentence is structurally plausible", 1),
    ("is the sentence plausible? yes it is", 1),
    ("i would say that it is not a plausible sentence.", 0),  # never fires: "." is normalised away
    ("no the original sentence is not plausible", 0),
    ("it s not a plausible", 0),
    ("to answer your original question no", 0),
    ("making it plausible", 1),
    ("making it implausible", 0),
    ("it is indeed a plausible sentence", 1),
    ("considering these points the sentence is plausible", 1),
    ("i would say the sentence is plausible", 1),
    ("i would say that the sentence is plausible", 1),
    ("i d say it s not entirely plausible", 0),
    ("therefore not plausible", 0),
    ("making it an implausible statement", 0),
    ("the following sentence is not plausible", 0),
    ("considering these points the sentence is unlikely to be true", 0),
    ("considering these points the sentence is not plausible", 0),
    ("yes the sentence is plausible", 1),
    ("based on this analysis the sentence is plausible", 1),
    ("considering these points the sentence seems plausible", 1),
    ("given the context the sentence is plausible", 1),
    ("considering these factors the sentence is plausible", 1),
    ("considering these points the sentence is unlikely to be plausible", 0),
    ("given the context of sports particularly basketball this sentence is plausible", 1),
    ("considering these points the sentence is likely true", 1),
    ("considering these elements the sentence is plausible", 1),
    ("i would say it s unlikely", 0),
    ("it seems unlikely", 0),
    ("given this analysis the sentence is plausible", 1),
    ("considering these points the sentence is the plausible", 1),
    ("the sentence is not entirely possible", 0),
    ("the sentence is not entirely accurate", 0),
    ("the sentence is not entirely plausible", 0),
    ("the answer is plausible", 1),
    ("modification of answer not possible", 0),
    ("the answer is without any modification no", 0),
    ("i would say that the sentence is generally plausible", 1),
    ("given these points the sentence is plausible", 1),
    ("considering these points the sentence seems to be a plausible", 1),
    ("the sentence appears to be a plausible", 1),
)

_SPORTS_PATTERNS: tuple[tuple[str, int], ...] = (
    ("considering these points the sentence (.+?) is grammatically correct and makes sense", 1),
    ("considering these points the sentence (.+?) is plausible", 1),
    ("considering these points the sentence (.+?) is unlikely", 0),
    ("based on this analysis the sentence (.+?) is plausible", 1),
    ("considering these points the sentence (.+?) seems to be a possible", 1),
    ("based on these steps the sentence (.+?) is plausible", 1),
    ("based on this analysis the sentence (.+?) seems plausible", 1),
    ("considering these points the sentence (.+?) appears to be plausible", 1),
    ("considering these points the sentence (.+?) seems plausible", 1),
    ("the sentence (.+?) is not very plausible", 0),
    ("considering these points (.+?) is a plausible sentence", 1),
    ("given this information the sentence (.+?) is plausible", 1),
    ("given the context the sentence (.+?) is plausible", 1),
    ("the sentence (.+?) is flexible and realistic", 1),
    ("considering these points the sentence (.+?) is not a plausible statement", 0),
    ("the sentence (.+?) is not plausible", 1),  # sic: VoiceBench reads it as plausible
)

SPORTS_UNDERSTANDING: tuple[Rule, ...] = (
    *YES_NO,
    *(("in", p, a) for p, a in _SPORTS_PHRASES),
    ("eq", "not plausible", 0),
    *(("re", p, a) for p, a in _SPORTS_PATTERNS),
    ("starts", "no", 0),
    ("starts", "yes", 1),
    ("starts", "the following sentence is plausible", 1),
    ("ends", "no", 0),
    ("ends", "yes", 1),
)

TASK_RULES: tuple[tuple[str, tuple[Rule, ...]], ...] = (
    ("sports_understanding", SPORTS_UNDERSTANDING),
    ("hyperbaton", HYPERBATON),
    ("navigate", NAVIGATE),
    ("web_of_lies", WEB_OF_LIES),
)
"""Task name -> its rules, tried in this order against the row's task id (a substring test)."""

GOLD: dict[str, int] = {"no": 0, "yes": 1, "(a)": 0, "(b)": 1}
"""The reference (lower-cased) -> the answer it stands for."""
