"""Reading a string of digits aloud in Chinese, as UltraEval-Audio's `cn_tn` does it
(SpeechIO's `num2chn` with the simplified, "mid" numbering system).

Two readings (official-rules.md §2.4.3):

- `read_number`: units on (十 百 千 万 亿 …), a gap of zeros read as one 零, trailing zeros
  silent, a leading zero read as 零, and the 两 rule;
- `read_digits`: one character per digit (`0` → 零), no units, no 两.

Both append `点` and the decimals digit by digit (zeros kept) when there is a `.`.
"""

DIGIT_CHARS = "零一二三四五六七八九"
POINT = "点"
LIANG = "两"

# (power of ten, unit), largest first: the "mid" system, 万 = 10^4, then ×10^4 per unit.
UNITS: tuple[tuple[int, str], ...] = (
    (44, "载"),
    (40, "正"),
    (36, "涧"),
    (32, "沟"),
    (28, "穰"),
    (24, "秭"),
    (20, "垓"),
    (16, "京"),
    (12, "兆"),
    (8, "亿"),
    (4, "万"),
    (3, "千"),
    (2, "百"),
    (1, "十"),
)
_UNIT_NAME = dict(UNITS)

# A symbol is (kind, value): ("digit", 0-9), ("unit", power) or ("point", 0).
Symbol = tuple[str, int]


def _expand(value: str) -> list[Symbol]:
    """Digits and units of an integer string. Only ASCII "0" counts as a leading zero (like
    `str.lstrip("0")`); each digit character is read with `int()`, so full-width digits work."""
    stripped = value.lstrip("0")
    if not stripped:
        return []
    if len(stripped) == 1:
        digit: Symbol = ("digit", int(stripped))
        return [("digit", 0), digit] if len(stripped) != len(value) else [digit]
    power = next(p for p, _ in UNITS if p < len(stripped))
    # The high part is cut from the unstripped value, the low part from the stripped one.
    return _expand(value[:-power]) + [("unit", power)] + _expand(stripped[-power:])


def _render(symbols: list[Symbol]) -> list[str]:
    """Render symbols; a 2 becomes 两 iff the next symbol is a unit other than 十 and the
    previous one is absent or a unit other than 十."""
    out = []
    for i, (kind, value) in enumerate(symbols):
        if kind == "unit":
            out.append(_UNIT_NAME[value])
        elif kind == "point":
            out.append(POINT)
        elif value == 2 and _liang_here(symbols, i):
            out.append(LIANG)
        else:
            out.append(DIGIT_CHARS[value])
    return out


def _liang_here(symbols: list[Symbol], i: int) -> bool:
    nxt = symbols[i + 1] if i + 1 < len(symbols) else None
    prev = symbols[i - 1] if i > 0 else None
    if nxt is None or nxt[0] != "unit" or nxt[1] == 1:
        return False
    return prev is None or (prev[0] == "unit" and prev[1] != 1)


def _read(number: str, use_units: bool) -> str:
    parts = number.split(".")
    if len(parts) > 2:
        raise ValueError(f"more than one decimal point in {number!r}")
    integer, decimals = parts[0], parts[1] if len(parts) == 2 else ""
    if use_units and len(integer) > 1:
        symbols = _expand(integer)
    else:
        symbols = [("digit", int(c)) for c in integer]
    if decimals:
        symbols += [("point", 0)] + [("digit", int(c)) for c in decimals]
    text = "".join(_render(symbols))  # without units (digit reading) the 两 rule never fires
    if text.startswith(POINT):
        text = DIGIT_CHARS[0] + text
    if len(text) >= 2 and text[0] == "一" and text[1] == "十":
        text = text[1:]  # a leading 一十 is read 十 (10 → 十, 15 → 十五, 100000 → 十万)
    return text


def read_number(number: str) -> str:
    """`num2chn(s)`: units on, 两 rule on. `2000` → 两千, `1005` → 一千零五, `007` → 零七,
    `00` → "" (all zeros read as nothing when there are two or more), `2.50` → 二点五零."""
    return _read(number, use_units=True)


def read_digits(number: str) -> str:
    """`num2chn(s, alt_two=False, use_units=False)`: `2024` → 二零二四, `010` → 零一零."""
    return _read(number, use_units=False)
