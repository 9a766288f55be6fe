"""UltraEval-Audio's Chinese text normaliser: `CN(text)` of `audio_evals/lib/wer.py`, i.e.
SpeechIO's `cn_tn.TextNorm` with every option off (official-rules.md §2.4).

`normalise_chinese(text)` runs two steps:

1. `normalize_nsw`: the text is wrapped as `^text$` and ten ordered passes read
   non-standard words (numbers) as Chinese characters: date, money, mobile phone, fixed
   phone, fraction, percent, number + quantifier, digit string, cardinal, then `P二P` is
   put back as `P2P`; finally every leading `^` and trailing `$` is stripped.
2. Every character of `PUNCS` (CJK punctuation + ASCII punctuation) becomes one space.

Nothing else: no full-width → half-width, no case change, no filler or erhua removal, no
space removal. Each pass takes `re.findall` on the current text, then for each match
replaces the *first occurrence of the matched substring anywhere in the text* (quirk Q1:
`5000和5个` → 五和五个), exactly as the original does. In UltraEval the English normaliser
runs first (§2.4.6); this module is `CN` alone.
"""

import re
import string
from collections.abc import Callable

from audioeval.benchmarks.ultraeval.chinese_numerals import read_digits, read_number

# Data, as in cn_tn (official-rules.md §2.4.1-§2.4.2).
CN_PUNCS_STOP = "！？｡。"
CN_PUNCS_NONSTOP = "＂＃＄％＆＇（）＊＋，－／：；＜＝＞＠［＼］＾＿｀｛｜｝～｟｠｢｣､、〃《》「」『』【】〔〕〖〗〘〙〚〛〜〝〞〟〰〾〿–—‘’‛“”„‟…‧﹏·〈〉-"
PUNCS = CN_PUNCS_STOP + CN_PUNCS_NONSTOP + string.punctuation
_PUNCS_TO_SPACE = str.maketrans(PUNCS, " " * len(PUNCS))

CURRENCY_UNITS = r"((亿|千万|百万|万|千|百)|(亿|千万|百万|万|千|百|)元|(亿|千万|百万|万|千|百|)块|角|毛|分)"
QUANTIFIERS = (
    r"(匹|张|座|回|场|尾|条|个|首|阙|阵|网|炮|顶|丘|棵|只|支|袭|辆|挑|担|颗|壳|窠|曲|墙|群|腔"
    r"|砣|座|客|贯|扎|捆|刀|令|打|手|罗|坡|山|岭|江|溪|钟|队|单|双|对|出|口|头|脚|板|跳|枝|件|贴"
    r"|针|线|管|名|位|身|堂|课|本|页|家|户|层|丝|毫|厘|分|钱|两|斤|担|铢|石|钧|锱|忽|(千|毫|微)克"
    r"|毫|厘|分|寸|尺|丈|里|寻|常|铺|程|(千|分|厘|毫|微)米|撮|勺|合|升|斗|石|盘|碗|碟|叠|桶|笼|盆"
    r"|盒|杯|钟|斛|锅|簋|篮|盘|桶|罐|瓶|壶|卮|盏|箩|箱|煲|啖|袋|钵|年|月|日|季|刻|时|周|天|秒|分"
    r"|旬|纪|岁|世|更|夜|春|夏|秋|冬|代|伏|辈|丸|泡|粒|颗|幢|堆|条|根|支|道|面|片|张|颗|块)"
)

DATE = re.compile(r"\D+((([089]\d|(19|20)\d{2})年)?(\d{1,2}月(\d{1,2}[日号])?)?)")
MONEY = re.compile(r"\D+((\d+(\.\d+)?)[多余几]?" + CURRENCY_UNITS + r"(\d" + CURRENCY_UNITS + r"?)?)")
MOBILE = re.compile(r"\D((\+?86 ?)?1([38]\d|5[0-35-9]|7[678]|9[89])\d{8})\D")
FIXED_LINE = re.compile(r"\D((0(10|2[1-3]|[3-9]\d{2})-?)?[1-9]\d{6,7})\D")
FRACTION = re.compile(r"(\d+/\d+)")
PERCENT = re.compile(r"(\d+(\.\d+)?%)")
NUMBER_QUANTIFIER = re.compile(r"(\d+(\.\d+)?)[多余几]?" + QUANTIFIERS)
DIGIT_STRING = re.compile(r"(\d{4,32})")
CARDINAL = re.compile(r"(\d+(\.\d+)?)")
LETTERS_TWO_LETTERS = re.compile(r"(([a-zA-Z]+)二([a-zA-Z]+))")
_NUMBER = re.compile(r"(\d+(\.\d+)?)")


def read_date(date: str) -> str:
    """`2019年3月15日` → 二零一九年三月十五日: the year digit by digit, the month and the day as
    numbers, the day's last character (日/号) kept. An empty date stays empty."""
    out, rest = "", date
    if "年" in rest:
        year, rest = rest.split("年", 1)
        out = read_digits(year) + "年"
    if rest:
        month, day = rest.split("月", 1)
        out += read_number(month) + "月"
        if day:
            out += read_number(day[:-1]) + day[-1]
    return out


def read_money(money: str) -> str:
    """Every number inside the money phrase read as a number; `str.replace` without a count,
    so each occurrence of the number's text is replaced (`3块5` → 三块五)."""
    for number in [m.group(1) for m in _NUMBER.finditer(money)]:
        money = money.replace(number, read_number(number))
    return money


def read_mobile(phone: str) -> str:
    """`+86 13812345678` → 八六一三八一二三四五六七八: `+` stripped, each space-separated part
    digit by digit, joined with nothing."""
    return "".join(read_digits(part) for part in phone.strip("+").split())


def read_fixed_line(phone: str) -> str:
    """`010-12345678` → 零一零一二三四五六七八: each `-`-separated part digit by digit."""
    return "".join(read_digits(part) for part in phone.split("-"))


def read_fraction(fraction: str) -> str:
    """`1/2` → 二分之一: the number after the slash, 分之, the number before it."""
    numerator, denominator = fraction.split("/")
    return read_number(denominator) + "分之" + read_number(numerator)


def read_percent(percent: str) -> str:
    """`50%` → 百分之五十."""
    return "百分之" + read_number(percent.strip().strip("%"))


def _restore_two(match: re.Match[str]) -> str:
    return match.group(2) + "2" + match.group(3)


def _whole(reader: Callable[[str], str]) -> Callable[[re.Match[str]], str]:
    return lambda match: reader(match.group(1))


# (name, pattern, converter of a match), in this order: each replaces its matches' group 1
# (the restore pass rebuilds groups 2 and 3).
PASSES: tuple[tuple[str, re.Pattern[str], Callable[[re.Match[str]], str]], ...] = (
    ("date", DATE, _whole(read_date)),
    ("money", MONEY, _whole(read_money)),
    ("mobile", MOBILE, _whole(read_mobile)),
    ("fixed_line", FIXED_LINE, _whole(read_fixed_line)),
    ("fraction", FRACTION, _whole(read_fraction)),
    ("percent", PERCENT, _whole(read_percent)),
    ("number_quantifier", NUMBER_QUANTIFIER, _whole(read_number)),
    ("digit_string", DIGIT_STRING, _whole(read_digits)),
    ("cardinal", CARDINAL, _whole(read_number)),
    ("restore_letters_2_letters", LETTERS_TWO_LETTERS, _restore_two),
)


def normalize_nsw(raw: str) -> str:
    """The ten passes of `cn_tn`'s `NSWNormalizer.normalize`, on `^raw$`."""
    text = "^" + raw + "$"
    for name, pattern, convert in PASSES:
        if name == "percent":
            text = text.replace("％", "%")
        for match in list(pattern.finditer(text)):
            # First occurrence of the matched text anywhere, not the match position (Q1).
            text = text.replace(match.group(1), convert(match), 1)
    return text.lstrip("^").rstrip("$")


def normalise_chinese(text: str) -> str:
    """UltraEval-Audio's `CN(text)`: `normalize_nsw`, then each `PUNCS` character → a space.
    `我在2019年3月15日出生。` → `我在二零一九年三月十五日出生 `."""
    return normalize_nsw(text).translate(_PUNCS_TO_SPACE)
