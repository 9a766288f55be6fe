"""Prices that turn usage (`core/usage.py`) into money: a price file's table, by model name.

A price file (YAML, `--prices FILE`) maps a model name, or a glob of names (`gpt-4o-audio*`),
to its prices in dollars: per million text input, audio input, text output and audio output
tokens, and/or per minute of audio sent (transcription APIs bill so):

    gpt-4o-audio-preview*: {input_text: 2.50, input_audio: 40.00, output_text: 10.00, output_audio: 80.00}
    whisper-1: {audio_minute: 0.006}

A name is the served model name (what the provider bills: `--model NAME@URL`'s NAME, the
run config's `served_model`, `--judge-model`). An exact key wins; otherwise the first glob
in the file's order that matches.

Unknown is never zero: a model no entry prices has an unknown cost (None), and so has a
usage whose tokens are unknown, or whose tokens of a kind the entry gives no price for are
not zero. A sum that meets an unknown cost is unknown.
"""

from __future__ import annotations

import fnmatch
import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from audioeval.core.errors import InputError
from audioeval.core.json_value import JsonValue
from audioeval.core.usage import Usage

PRICE_KEYS = ("input_text", "input_audio", "output_text", "output_audio", "audio_minute")
"""The prices of an entry: $ per million tokens of each kind, and $ per minute of audio sent."""
MAX_PRICE = 1_000_000.0
"""The largest price accepted ($ per million tokens or per minute): far beyond any list price."""


@dataclass(frozen=True, slots=True)
class Price:
    """One entry of a price file (None: not priced)."""

    input_text: float | None = None
    input_audio: float | None = None
    output_text: float | None = None
    output_audio: float | None = None
    audio_minute: float | None = None

    @property
    def by_tokens(self) -> bool:
        return any(
            v is not None for v in (self.input_text, self.input_audio, self.output_text, self.output_audio)
        )

    def cost(self, usage: Usage) -> float | None:
        """Dollars `usage` cost at these prices; None when it cannot be known."""
        if usage.calls == 0 and usage.retries == 0:
            return 0.0  # nothing was asked (an answer from the response cache)
        total = 0.0
        if self.audio_minute is not None:
            if usage.audio_sent_s is None or (not usage.audio_sent_s and not self.by_tokens):
                return None  # unknown, or a request that sent no audio (speech out) priced by audio in
            total += self.audio_minute * usage.audio_sent_s / 60.0
        if self.by_tokens:
            parts = (
                _split(
                    usage.input_tokens,
                    usage.input_audio_tokens,
                    usage.audio_sent_s,
                    self.input_text,
                    self.input_audio,
                ),
                _split(
                    usage.output_tokens,
                    usage.output_audio_tokens,
                    usage.audio_received_s,
                    self.output_text,
                    self.output_audio,
                ),
            )
            for part in parts:
                if part is None:
                    return None
                total += part
        elif self.audio_minute is None:
            return None
        return total


def _split(
    tokens: int | None,
    audio: int | None,
    audio_s: float | None,
    text_price: float | None,
    audio_price: float | None,
) -> float | None:
    """Dollars of one direction's tokens (all of them, and their audio part); None when the
    tokens, or the split between text and audio where their prices differ, are unknown, or
    tokens of a kind are not zero and have no price."""
    if tokens is None:
        return None
    if audio is None:
        if audio_s == 0.0:  # no audio went that way: every token is text
            audio = 0
        elif text_price is not None and text_price == audio_price:
            return text_price * tokens / 1e6
        else:
            return None
    text = max(0, tokens - audio)
    out = 0.0
    for count, price in ((text, text_price), (audio, audio_price)):
        if count:
            if price is None:
                return None
            out += price * count / 1e6
    return out


@dataclass(frozen=True, slots=True)
class PriceTable:
    """A price file's entries, in its order; `source` names the file in messages."""

    entries: tuple[tuple[str, Price], ...]
    source: str = "the price file"

    def price_of(self, model: str | None) -> Price | None:
        """The entry of a served model name: its exact key, else the first glob that matches."""
        if model is None:
            return None
        for key, price in self.entries:
            if key == model:
                return price
        for key, price in self.entries:
            if fnmatch.fnmatchcase(model, key):
                return price
        return None

    def cost(self, model: str | None, usage: Usage | None) -> float | None:
        """Dollars `usage` of `model` cost; None when unknown (no price, unknown usage)."""
        price = self.price_of(model)
        if price is None or usage is None:
            return None
        return price.cost(usage)

    def to_record(self) -> dict[str, dict[str, float]]:
        """The table as a price file writes it (what run.json keeps)."""
        return {
            key: {k: getattr(p, k) for k in PRICE_KEYS if getattr(p, k) is not None}
            for key, p in self.entries
        }

    @classmethod
    def from_mapping(cls, data: Mapping[str, JsonValue], source: str) -> PriceTable:
        """The table of a price file's mapping; InputError naming the file and the entry."""
        entries = []
        for key, value in data.items():
            if not isinstance(key, str) or not key.strip():
                raise InputError(f"a price entry's key is a model name or glob, not {key!r}", file=source)
            if not isinstance(value, Mapping) or not value:
                raise InputError(
                    f"prices of {key!r}: expected a mapping of {', '.join(PRICE_KEYS)}",
                    file=source,
                    field=key,
                )
            prices: dict[str, float] = {}
            for name, amount in value.items():
                where = f"{key}.{name}"
                if name not in PRICE_KEYS:
                    raise InputError(
                        f"unknown price {name!r}: one of {', '.join(PRICE_KEYS)}", file=source, field=where
                    )
                ok = (
                    isinstance(amount, int | float) and not isinstance(amount, bool) and math.isfinite(amount)
                )
                if not ok or not 0 <= amount <= MAX_PRICE:
                    raise InputError(
                        f"a price is a number of dollars from 0 to {MAX_PRICE:g}, got {amount!r}",
                        file=source,
                        field=where,
                    )
                prices[str(name)] = float(amount)
            entries.append((key, Price(**prices)))
        return cls(tuple(entries), source)


def sum_costs(costs: Iterable[float | None]) -> float | None:
    """The sum of costs; None when any is unknown."""
    total = 0.0
    for c in costs:
        if c is None:
            return None
        total += c
    return total
