"""UltraEval-Audio's `CN(text)` (SpeechIO cn_tn, every option off), rule by rule.

Every expected value is worked out by hand from official-rules.md §2.4 (the pass order, the
regexes, the quantifier and currency lists, `num2chn`, quirks Q1-Q5); the values of §2.4's
own example tables are the official outcomes quoted there.
"""

import pytest

from audioeval.benchmarks.ultraeval.chinese_numerals import read_digits, read_number
from audioeval.benchmarks.ultraeval.chinese_textnorm import PUNCS, normalise_chinese


def _check(cases: dict[str, str]) -> None:
    got = {text: normalise_chinese(text) for text in cases}
    assert got == cases


# --- num2chn (§2.4.3) ---------------------------------------------------------------


def test_number_reading_units_and_one_zero_per_gap():
    cases = {
        "10050": "一万零五十",
        "1050": "一千零五十",
        "1005": "一千零五",
        "100005": "十万零五",
        "101": "一百零一",
        "1010": "一千零一十",
        "110": "一百一十",
        "123": "一百二十三",
    }
    assert {n: read_number(n) for n in cases} == cases


def test_liang_only_before_a_unit_other_than_shi_and_after_nothing_or_such_a_unit():
    cases = {
        "2": "二",
        "20": "二十",
        "22": "二十二",
        "200": "两百",
        "222": "两百二十二",
        "1200": "一千两百",
        "2000": "两千",
        "20000": "两万",
        "22000": "两万两千",
        "2002": "两千零二",
        "200000000": "两亿",
        "1020000": "一百零二万",
        "2.2": "二点二",
    }
    assert {n: read_number(n) for n in cases} == cases


def test_leading_yi_shi_is_read_shi_only_at_the_start():
    cases = {"10": "十", "15": "十五", "100000": "十万", "10.5": "十点五", "110": "一百一十"}
    assert {n: read_number(n) for n in cases} == cases


def test_leading_zeros():
    cases = {
        "0": "零",
        "00": "",
        "007": "零七",
        "05": "零五",
        "010": "零一十",
        "0123": "零一百二十三",
        "0.5": "零点五",
    }
    assert {n: read_number(n) for n in cases} == cases


def test_decimals_are_read_digit_by_digit_keeping_zeros():
    assert read_number("2.50") == "二点五零"
    assert read_number("3.05") == "三点零五"


def test_large_units_of_the_mid_system():
    assert read_number("1000000000000") == "一兆"
    assert read_number("10000000000000000") == "一京"
    assert read_number("100000000") == "一亿"


def test_digit_reading_has_no_units_and_no_liang():
    assert read_digits("2024") == "二零二四"
    assert read_digits("2000") == "二零零零"
    assert read_digits("010") == "零一零"


def test_more_than_one_point_is_an_error():
    with pytest.raises(ValueError):
        read_number("1.2.3")


# --- normalize_nsw passes, in order (§2.4.2) --------------------------------------------


def test_pass1_date_year_digit_by_digit_month_and_day_as_numbers():
    _check(
        {
            "2019年3月15日": "二零一九年三月十五日",
            "1949年10月1日": "一九四九年十月一日",
            "5月1号": "五月一号",
            "3月8号": "三月八号",
            "12月22日": "十二月二十二日",
            "2008年": "二零零八年",
            "2022年": "二零二二年",
            "2019年13月": "二零一九年十三月",
        }
    )


def test_pass1_which_digits_make_a_year():
    # 19xx/20xx, or two digits starting 0, 8 or 9, after a non-digit; other N年 reach the
    # quantifier pass (年 is a quantifier) and are read as numbers.
    _check(
        {
            "98年": "九八年",
            "08年": "零八年",
            "12年": "十二年",
            "20年": "二十年",
            "1850年": "一千八百五十年",
            "2100年": "两千一百年",
            "3000年": "三千年",
            "998年": "九百九十八年",
            "11985年": "一万一千九百八十五年",
        }
    )


def test_pass1_a_day_without_a_month_is_not_a_date():
    _check({"15日": "十五日", "3号": "三号"})


def test_pass2_money_number_reading_with_liang():
    _check(
        {
            "2000元": "两千元",
            "20000元": "两万元",
            "3块5": "三块五",
            "3块5毛": "三块五毛",
            "2.50元": "二点五零元",
            "3角5分": "三角五分",
            "100多万": "一百多万",
            "1.5万元": "一点五万元",
            "2000万人": "两千万人",
        }
    )


def test_pass2_bare_magnitudes_count_as_money_and_one_digit_never_gets_liang():
    _check(
        {
            "2万": "二万",
            "20万": "二十万",
            "2.5万": "二点五万",
            "1万2": "一万二",
            "5百": "五百",
            "2百": "二百",
            "5000千米": "五千千米",
        }
    )


def test_money_rule_runs_before_the_phone_rules():
    _check({"13812345678元": "一百三十八亿一千两百三十四万五千六百七十八元"})


def test_pass3_mobile_numbers_digit_by_digit():
    _check(
        {
            "13812345678": "一三八一二三四五六七八",
            "+86 13812345678": "八六一三八一二三四五六七八",
            "电话18612345678。": "电话一八六一二三四五六七八 ",
        }
    )


def test_pass3_mobile_prefixes_exclude_154():
    # Not a mobile, so +86 stays as a cardinal; the 11 digits are a digit string.
    _check({"+86 15412345678": " 八十六 一五四一二三四五六七八"})


def test_pass3_and_4_phones_run_before_the_quantifier_pass():
    _check({"13812345678个": "一三八一二三四五六七八个", "1234567个": "一二三四五六七个"})


def test_pass4_fixed_line_with_area_code():
    _check(
        {
            "010-12345678": "零一零一二三四五六七八",
            "0595-23865596": "零五九五二三八六五五九六",
            "1234567": "一二三四五六七",
        }
    )


def test_pass5_fraction_denominator_first():
    _check({"1/2": "二分之一", "3/4": "四分之三", "2/200": "两百分之二"})


def test_pass6_percent_half_and_full_width():
    _check(
        {
            "50%": "百分之五十",
            "200%": "百分之两百",
            "0.5%": "百分之零点五",
            "50％": "百分之五十",
            "2.5%的人": "百分之二点五的人",
        }
    )


def test_pass7_number_before_a_quantifier_is_a_number():
    _check(
        {
            "3000个人": "三千个人",
            "10000个": "一万个",
            "第10000名": "第一万名",
            "200个": "两百个",
            "2个": "二个",
            "100多个": "一百多个",
            "1000余年": "一千余年",
            "12.5斤": "十二点五斤",
            "5000厘米": "五千厘米",
        }
    )


def test_characters_outside_the_quantifier_list_leave_4_digits_digit_by_digit():
    _check(
        {
            "3000人": "三零零零人",
            "1000次": "一零零零次",
            "1000度": "一零零零度",
            "5000米": "五零零零米",
            "3000公里": "三零零零公里",
        }
    )


def test_pass8_digit_strings_of_4_or_more():
    _check(
        {
            "2024": "二零二四",
            "10000": "一零零零零",
            "1200": "一二零零",
            "1234567890123": "一二三四五六七八九零一二三",
        }
    )


def test_pass8_runs_past_32_digits_are_cut_in_chunks():
    # 36 digits: a chunk of 32 then one of 4, both digit by digit; 33 digits leave one digit
    # for the cardinal pass, which reads it the same.
    _check({"2" * 36: "二" * 36, "1" * 33: "一" * 33})


def test_pass8_long_decimals_lose_their_point():
    _check({"3.14159": "三 一四一五九", "1234.5": "一二三四 五"})


def test_pass9_remaining_numbers_are_cardinals():
    _check(
        {
            "12": "十二",
            "3.14": "三点一四",
            "2个和12": "二个和十二",
            "4.0": "四点零",
            "00": "",
            "007": "零七",
            "010": "零一十",
            "222": "两百二十二",
            "0.5": "零点五",
        }
    )


def test_ranges():
    _check({"3-5个": "三 五个", "10-20万": "十 二十万", "2019-2020年": "二零一九 二零二零年"})


def test_pass10_restores_letters_2_letters():
    _check({"P2P": "P2P", "B2B": "B2B", "o2o": "o2o", "A二B": "A2B", "p 2 p": "p 二 p"})


# --- punctuation and what is not done (§2.4.1) ---------------------------------------------


def test_every_punctuation_character_becomes_one_space():
    _check(
        {
            "你好，世界！": "你好 世界 ",
            "a,b.c": "a b c",
            "（笑）你好": " 笑 你好",
            "a^b$c": "a b c",
            "花了$20。": "花了 二十 ",
        }
    )
    assert normalise_chinese(PUNCS) == " " * len(PUNCS)


def test_no_other_normalisation_with_ultraeval_options():
    _check(
        {
            "Ｈｅｌｌｏ": "Ｈｅｌｌｏ",
            "ABC def": "ABC def",
            "嗯呃那个儿": "嗯呃那个儿",
            "a  b": "a  b",
            "繁體": "繁體",
            "": "",
        }
    )


# --- quirks (§2.4.5) ---------------------------------------------------------------------


def test_q1_first_occurrence_replacement():
    _check({"5000和5个": "五和五个", "12和2个": "一二和二个"})


def test_q2_empty_date_matches_change_nothing():
    _check({"没有数字": "没有数字", "年月日": "年月日"})


def test_q3_edge_carets_and_dollars_are_stripped():
    _check({"^^abc$$": "abc", "$5": " 五"})


def test_q4_no_sign_handling():
    _check({"-5": " 五"})


def test_q5_time():
    _check({"12点30分": "十二点三十分", "12:30": "十二 三十"})


def test_full_width_digits_are_digits_but_a_full_width_zero_is_not_a_leading_zero():
    _check({"１２": "十二", "０５个": "零十五个"})


# --- on what the English normaliser hands over in UltraEval (§2.4.6) ------------------------


def test_on_english_normaliser_output():
    # EN turns `010-12345678` into "10 12345678", `1/2` into "one 2" and `one two three`
    # into "123"; CN reads the digits and leaves Latin words alone.
    _check({"10 12345678": "十 一二三四五六七八", "one 2": "one 二", "123": "一百二十三"})
