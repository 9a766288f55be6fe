"""Question forms of MMAE rubrics that a measurement can answer, as check rules
(`judge/checkable.py`): the tone questions of the synthetic set (`synthetic.py`) and the
measurable forms of the paper's rubric appendix (speech presence, silence, loudness against an
input, reversal, fades, panning, pitch higher / lower than an input, speed or tempo faster /
slower than an input, bandwidth below a cutoff). A question none of them matches is left to the
judge."""

from __future__ import annotations

import re

from audioeval.judge.checkable import CheckRule

_CLIP = r"(?P<clip><audio\s+[A-Za-z_]+\d*\s*(?:\[[^\]]*\])?\s*>)"
_REF = r"(?P<ref><audio\s+[A-Za-z_]+\d*\s*(?:\[[^\]]*\])?\s*>)"


def _rule(name: str, pattern: str, expression: str) -> CheckRule:
    return CheckRule(name, re.compile(pattern, re.I), expression)


_AGAINST = r"(?:compared (?:with|to)|relative to|from)"
_THAN = r"than (?:that of |the (?:pitch|tempo|speed) of )?"

# pitch: (direction words of the question, check); the threshold is `pitch_moved`'s 1 semitone
_PITCH = ((r"higher", "pitch_higher"), (r"lower", "pitch_lower"))


def _pitch_rules(word: str, check: str) -> tuple[CheckRule, ...]:
    moved = "raised" if check == "pitch_higher" else "lowered"
    expression = check + "({clip}, {ref})"
    return (
        _rule(f"{check}_than", rf"^Is the pitch of {_CLIP} {word} {_THAN}{_REF}\??$", expression),
        _rule(
            f"{check}_in_pitch",
            rf"^Is {_CLIP} (?:pitched {word}|{word} in pitch|{word}-pitched) than {_REF}\??$",
            expression,
        ),
        _rule(
            f"{check}_compared",
            rf"^Compared (?:with|to) {_REF}, is the pitch of {_CLIP} {word}\??$",
            expression,
        ),
        _rule(
            f"{check}_compared_in_pitch",
            rf"^Compared (?:with|to) {_REF}, is {_CLIP} {word} in pitch\??$",
            expression,
        ),
        _rule(f"{check}_moved", rf"^Has the pitch of {_CLIP} been {moved} {_AGAINST} {_REF}\??$", expression),
    )


_SPEED = ((r"faster", "faster"), (r"slower", "slower"))


def _speed_rules(word: str, check: str) -> tuple[CheckRule, ...]:
    tempo = "higher" if check == "faster" else "lower"
    moved = "sped up" if check == "faster" else "slowed down"
    expression = check + "({clip}, {ref})"
    what = r"the (?:tempo|speed|playback speed|speaking rate|speech rate)"
    return (
        _rule(f"{check}_than", rf"^Is {_CLIP} (?:played |spoken )?{word} than {_REF}\??$", expression),
        _rule(
            f"{check}_tempo_than",
            rf"^Is {what} of {_CLIP} (?:{word}|{tempo}) {_THAN}{_REF}\??$",
            expression,
        ),
        _rule(
            f"{check}_compared",
            rf"^Compared (?:with|to) {_REF}, is {_CLIP} (?:played |spoken )?{word}\??$",
            expression,
        ),
        _rule(
            f"{check}_tempo_compared",
            rf"^Compared (?:with|to) {_REF}, is {what} of {_CLIP} (?:{word}|{tempo})\??$",
            expression,
        ),
        _rule(f"{check}_moved", rf"^Has {_CLIP} been {moved} {_AGAINST} {_REF}\??$", expression),
    )


def _band_rules(name: str, pattern: str, expression: str) -> tuple[CheckRule, ...]:
    """One question form (`{HZ}`: where its cutoff is written), once per way of writing the
    cutoff: N Hz, N kHz or N.D kHz; the expression gets Hz."""
    hz, khz, kdec = (r"(?P<hz>\d+) ?Hz", r"(?P<khz>\d+) ?kHz", r"(?P<kint>\d+)\.(?P<kdec>\d) ?kHz")
    lead = r"(?:about |around |roughly )?"
    return (
        _rule(
            f"{name}_hz", pattern.replace("{HZ}", lead + hz), expression.format(cutoff="{hz}", clip="{clip}")
        ),
        _rule(
            f"{name}_khz",
            pattern.replace("{HZ}", lead + khz),
            expression.format(cutoff="{khz}000", clip="{clip}"),
        ),
        _rule(
            f"{name}_khz_decimal",
            pattern.replace("{HZ}", lead + kdec),
            expression.format(cutoff="{kint}{kdec}00", clip="{clip}"),
        ),
    )


_BANDWIDTH_RULES: tuple[CheckRule, ...] = (
    *_band_rules(
        "band_limited",
        rf"^Is {_CLIP} band-?limited (?:to|below|at) {{HZ}}\??$",
        "band_limited({clip}, {cutoff})",
    ),
    *_band_rules(
        "low_pass",
        rf"^Has {_CLIP} been low-?pass(?:ed| filtered) (?:at|to|below) {{HZ}}\??$",
        "band_limited({clip}, {cutoff})",
    ),
    *_band_rules(
        "content_above_removed",
        rf"^Is (?:the |all )?(?:high-frequency )?(?:content|sound|energy) above {{HZ}} removed (?:from|in) {_CLIP}\??$",
        "band_limited({clip}, {cutoff})",
    ),
    *_band_rules(
        "content_above_heard",
        rf"^In {_CLIP}, can (?:any )?(?:content|sound|frequencies|energy) above {{HZ}} (?:still )?be heard\??$",
        "not band_limited({clip}, {cutoff})",
    ),
    _rule(
        "telephone_band",
        rf"^Does {_CLIP} sound (?:like a (?:telephone|phone)(?: call| recording| line)?|narrowband)(?: \(narrowband\))?\??$",
        "band_limited({clip}, 4000)",
    ),
)

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
    *(rule for words, check in _PITCH for rule in _pitch_rules(words, check)),
    *(rule for words, check in _SPEED for rule in _speed_rules(words, check)),
    *_BANDWIDTH_RULES,
)
