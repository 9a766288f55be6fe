"""VoiceBench's multiple-choice reader (`src/evaluator/mcq.py`, `extract_answer`), as data and steps.

Used for openbookqa and mmsu. Reproduced exactly, quirks included (VoiceBench @ 5338154):

1. the reply is lower-cased; nothing is stripped;
2. a reply starting with `<1>`, `<2>` or `<3>` loses those 3 characters and is stripped;
3. `TEMPLATES` in order (outer loop), letters a-d (inner loop): the first needle (the template
   with `[CHOICE]` replaced by the lower-case letter) that is a plain substring of the reply
   gives that letter; no word boundaries ("the answer is actually C" reads as A: "the answer
   is a" is a substring; "Not B. ... It must be C." reads as B: " b.");
4. else, letter by letter: the reply is exactly `x`, or starts with `x.`, `x,`, `x:` or `x)`;
5. (three special literals follow in VoiceBench; earlier templates always catch them first,
   so they are not repeated here: `would be a.` is template 53, `would be "a.` template 25);
6. else the reply is unreadable (None): VoiceBench then picks a letter at random.
"""

from __future__ import annotations

from dataclasses import dataclass

LETTERS = "abcd"
"""The letters VoiceBench tries, in order (also the ones it picks from at random)."""

TEMPLATES: tuple[str, ...] = (
    "答案是[CHOICE]",
    "答案是 [CHOICE]",
    "答案是选项[CHOICE]",
    "答案应该是[CHOICE]",
    "答案应该是 [CHOICE]",
    "答案就是选项[CHOICE]",
    "答案是‘[CHOICE]",
    "是[CHOICE]：",
    "答案选[CHOICE]",
    "[CHOICE]是正确",
    "选项[CHOICE]是最合适的",
    "answer is: **[CHOICE]",
    "answer is **[CHOICE]",
    "the answer to the question is: **[CHOICE]",
    "the answer to the multiple-choice question is **[CHOICE]",
    "the answer is '[CHOICE]'",
    "[CHOICE] is the best answer",
    "the answer is [CHOICE]",
    "the correct answer is [CHOICE]",
    "would select [CHOICE]",
    "would choose [CHOICE]",
    "would select option [CHOICE]",
    "would choose option [CHOICE]",
    'is "[CHOICE]"',
    'is "[CHOICE].',
    "is: **[CHOICE])",
    "is **[CHOICE],",
    "is **[CHOICE]:",
    "is **[CHOICE])",
    "is: **[CHOICE].",
    "is: **[CHOICE]:",
    "is **[CHOICE].",
    "be **[CHOICE],",
    "is: **[CHOICE]**",
    "is therefore option **[CHOICE]:",
    "is: \n\n**[CHOICE])",
    "as **[CHOICE]:",
    "be **[CHOICE])",
    "be **[CHOICE]:",
    "is: \n\n**[CHOICE]**",
    "suggests **[CHOICE])",
    "be option **[CHOICE]:",
    "with **[CHOICE])",
    'is typically "[CHOICE])',
    "be to **[CHOICE])",
    "is: \n\n[CHOICE])",
    "is likely to be: **[CHOICE].",
    "is **[CHOICE] (",
    "is option **[CHOICE]**",
    "is likely **[CHOICE]**",
    "is:\n**[CHOICE].",
    "is:\n\n**[CHOICE].",
    "would be [CHOICE]",
    "would be option [CHOICE]",
    "would be ([CHOICE])",
    "would be option ([CHOICE])",
    "is [CHOICE],",
    "is typically [CHOICE],",
    "is typically [CHOICE].",
    "i'd say [CHOICE].",
    "option [CHOICE].",
    "option [CHOICE]:",
    "option [CHOICE],",
    "the answer is:\n**[CHOICE]",
    "is [CHOICE]:",
    "is [CHOICE].",
    "is [CHOICE],",
    "is: [CHOICE].",
    "is ([CHOICE])",
    "is:\n**[CHOICE])",
    "is likely **[CHOICE]:",
    "is the **[CHOICE])",
    ":\n[CHOICE].",
    ":\n[CHOICE])",
    ":\n[CHOICE],",
    ": \n[CHOICE].",
    ":  \n[CHOICE].",
    ":\n\n[CHOICE].",
    ":\n\n[CHOICE])",
    "is most likely **[CHOICE]:",
    ":\n\n[CHOICE],",
    ": \n\n[CHOICE].",
    "is option [CHOICE],",
    "([CHOICE]) would be",
    "is ([CHOICE]).",
    "is [CHOICE])",
    "is: [CHOICE])",
    "is:\n\n[CHOICE]:",
    "is: **[CHOICE],",
    "(option [CHOICE])",
    "answer is ([CHOICE])",
    'select option "[CHOICE]"',
    "is: [CHOICE]",
    "is typically **[CHOICE],",
    "is **[CHOICE]**",
    "is likely '[CHOICE]'",
    "is option '[CHOICE]'",
    "is:\n**[CHOICE]:",
    "is \\( \\boxed{[CHOICE] ",
    "would be '[CHOICE]'",
    "is the **[CHOICE]** ",
    "question is [CHOICE] (",
    "is:\n\n**[CHOICE])",
    "closest to option **[CHOICE]**",
    "is most likely **[CHOICE])",
    "the answer to the question is '[CHOICE]'",
    "question is **[CHOICE]**",
    "known as '[CHOICE]'",
    "is '[CHOICE])",
    "is typically **[CHOICE]:",
    "is \\( \\boxed{\\text{[CHOICE]}} \\)",
    "is \\( \\text{[CHOICE]) }",
    "is \\( \\text{[CHOICE]} \\)",
    "is \\( \\text{[CHOICE]:",
    "is \\( \\text{[CHOICE])",
    "is \\(\\text{[CHOICE].",
    "is:\n\n**[CHOICE]",
    "is \\( \\text{[CHOICE].}",
    "is \\( \\text{[CHOICE].",
    "is \\( \\boxed{[CHOICE]}",
    "is:\n\\[ \\boxed{\\text{[CHOICE]}}",
    "is:\n\\[ \\text{[CHOICE])",
    "is:\n\n\\[ \\text{[CHOICE])",
    "is \\( \\textbf{[CHOICE])",
    "is \\( \\text{[CHOICE]}",
    "is: \\( \\text{[CHOICE].",
    "corresponds to:\n- **[CHOICE]:",
    "would be: **[CHOICE]**.",
    "is \\( [CHOICE] \\)",
    "is:\n**[CHOICE] ",
    "corresponds to option **[CHOICE]**",
    "be **[CHOICE]**",
    "be: \n\n[CHOICE])",
    "is:\n\\[ \\boxed{[CHOICE]}",
    "is:  \n**[CHOICE]:",
    "is: \\( \\text{[CHOICE])",
    "is likely: **[CHOICE],",
    "is } \\mathbf{[CHOICE].",
    "is \\( \\boxed{[CHOICE])",
    "is \\( \\textbf{[CHOICE]}",
    "is \\([CHOICE]\\)",
    "is:\n  \n**[CHOICE]:",
    "is option **[CHOICE] ",
    "is:\n\\( \\textbf{[CHOICE].",
    "is \\( \\mathbf{[CHOICE]}",
    "was option **[CHOICE]**",
    'is likely "[CHOICE])',
    "option **[CHOICE]:",
    'is "[CHOICE])',
    "is most likely **[CHOICE],",
    "is often **[CHOICE]:",
    "is:  \n[CHOICE])",
    " [CHOICE].",
    " [CHOICE],",
    " [CHOICE]:",
    " [CHOICE])",
    "**[CHOICE].",
    "**[CHOICE])",
    '"[CHOICE].',
    '"[CHOICE],',
    '"[CHOICE]:',
    "([CHOICE])",
    '"[CHOICE]"',
)
"""VoiceBench's answer templates, in its order (163 entries; `'is [CHOICE],'` twice, as
there). `[CHOICE]` stands for a lower-case letter; the reply is lower-cased before the scan."""

_TURN_TAGS = ("<1>", "<2>", "<3>")
_PREFIX_MARKS = (".", ",", ":", ")")


@dataclass(frozen=True, slots=True)
class Reading:
    """The letter VoiceBench reads (upper case) or None, and the rule that read it."""

    letter: str | None
    rule: str  # "template <n>" (1-based, VoiceBench's order) | "bare letter" | "leading letter" | "none"


def read_letter(reply: str) -> Reading:
    """The letter VoiceBench's MCQ evaluator reads from a reply, step by step as it does."""
    text = reply.lower()
    if text.startswith(_TURN_TAGS):
        text = text[3:].strip()
    for number, template in enumerate(TEMPLATES, start=1):
        for letter in LETTERS:
            if template.replace("[CHOICE]", letter) in text:
                return Reading(letter.upper(), f"template {number}")
    for letter in LETTERS:
        if text == letter:
            return Reading(letter.upper(), "bare letter")
        if text.startswith(tuple(letter + mark for mark in _PREFIX_MARKS)):
            return Reading(letter.upper(), "leading letter")
    return Reading(None, "none")
