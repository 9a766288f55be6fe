"""Question forms of MMAE rubrics that a measurement can answer, as check rules
(`judge/checkable.py`): the tone questions of the synthetic set (`synthetic.py`) and the
measurable forms of the paper's rubric appendix (speech presence, silence, loudness against an
input, reversal, fades, panning). A question none of them matches is left to the judge."""

from __future__ import annotations

import re

from audioeval.judge.checkable import CheckRule

_CLIP = r"(?P<clip><audio\s+[A-Za-z_]+\d*\s*(?:\[[^\]]*\])?\s*>)"
_REF = r"(?P<ref><audio\s+[A-Za-z_]+\d*\s*(?:\[[^\]]*\])?\s*>)"


def _rule(name: str, pattern: str, expression: str) -> CheckRule:
    return CheckRule(name, re.compile(pattern, re.I), expression)


MMAE_CHECK_RULES: tuple[CheckRule, ...] = (
    _rule(
        "tone_in_clip",
        rf"^(?:Compared with <audio [^>]*>, )?(?:In {_CLIP}, )?can a steady tone near (?P<freq>\d+(?:\.\d+)?) Hz"
        r" (?:still )?be heard\?$",
        "tone_present({clip}, {freq})",
    ),
    _rule(
        "tone_heard_in",
        rf"^(?:Compared with <audio [^>]*>, )?can a steady tone near (?P<freq>\d+(?:\.\d+)?) Hz (?:still )?be heard"
        rf" in {_CLIP}\?$",
        "tone_present({clip}, {freq})",
    ),
    _rule(
        "speech_in",
        rf"^(?:Is there|Can) (?:any )?speech (?:be heard )?in {_CLIP}\??$",
        "speech_present({clip})",
    ),
    _rule("silent", rf"^Is {_CLIP} (?:completely )?silent\??$", "silent({clip})"),
    _rule("louder", rf"^Is {_CLIP} louder than {_REF}\??$", "louder({clip}, {ref})"),
    _rule("quieter", rf"^Is {_CLIP} (?:quieter|softer) than {_REF}\??$", "quieter({clip}, {ref})"),
    _rule("reversed", rf"^Is {_CLIP} the reverse of {_REF}\??$", "reversed_of({clip}, {ref})"),
    _rule("fade_out", rf"^Does {_CLIP} fade out(?: at the end)?\??$", "fade_out({clip}, 1.0)"),
    _rule("fade_in", rf"^Does {_CLIP} fade in(?: at the start)?\??$", "fade_in({clip}, 1.0)"),
    _rule("panned", rf"^Is {_CLIP} panned (?:to the )?(?P<side>left|right)\??$", "panned({clip}, {side})"),
)
