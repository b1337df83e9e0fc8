"""Calls a model was shown: is a call read from its text one of them (the gate's question 3)?

A model that echoes a document, a tool result or an example writes a call it did not decide to make.  The gate compares
the parsed call (tool name, arguments as a dict) with every call of that tool written in the sources, in any shape vero
reads a call in and the shapes close to them (``Action:`` lines, JSON objects under any keys, Python dicts,
``<function=...>``, XML elements, ``tool(a=1)``, ``<tool a="1"/>``: ``calls_written``; docs/tools.md, "The gate"), with
the tool's name in any case and spelling (``delete-record``, ``deleteRecord``, ``functions.delete_record``,
``delete record``).  Each source is read as an echo may differ from it (``_forms``: markup a renderer hides, escapes,
list and quote marks, invisible and look-alike characters), and arguments are compared as values (``canonical``:
spacing, case and a number's spelling aside).  In tool results, and in any text padded past the readers' limits, the
tool's name with each of the call's values near it is a call too (``_named_with_values``); in the tools' descriptions,
with each value after its parameter's name (``_keyed``).
"""

from __future__ import annotations

import ast
import base64
import binascii
import contextlib
import functools
import html
import ipaddress
import itertools
import json
import os
import quopri
import re
import unicodedata
import urllib.parse
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from datetime import datetime
from operator import itemgetter
from string import digits
from typing import Any

from vero.core.parsing.json_text import parse_json_value
from vero.core.parsing.react_text import parse_react
from vero.core.parsing.requests_written import requests_naming
from vero.core.parsing.text_calls import _attribute_tag, _function_call, written_call
from vero.core.text import INVISIBLE

MAX_NAME_MENTIONS = 2000  # mentions of the tool read per source form (each is read in bounded time)
MAX_OBJECT_TRIES = 16  # "{" tried backwards from a mention, for the JSON object that holds it
MAX_CALL_CHARS = 8000  # how far a call written after a mention is read
MAX_TOKENS = 2000  # strings, brackets and commas read in a call written as code
PAST_LIMIT = -2  # where a reader stopped at a limit
NEAR_CHARS = 300  # how far from a mention of the tool in a tool result its values are looked for
MAX_REPAIRS = 4  # JSON objects around mentions read leniently per text (JavaScript keys, trailing commas...)
# Data is read as a model or a program reads it: a key given twice (a patch's - and + lines) keeps its last value
_READER = json.JSONDecoder(strict=False)
PADDED = object()  # yielded by ``calls_written`` where a limit above cut its reading short
_NONE: Mapping[str, str] = {}  # no descriptions
_ANYWHERE = re.compile("")  # a tool's own description is about it throughout: every reading of it is read

# Letters of other scripts drawn like Latin ones (Cyrillic, Greek, Armenian, Lisu, Cherokee, Latin variants), and dashes
# drawn like a hyphen: a name or value written with them reads the same.  Pairs: look-alike, Latin.
_LOOK_ALIKE_PAIRS = (
    "\u0430a \u0435e \u043eo \u0440p \u0441c \u0443y \u0445x \u0456i \u0458j \u0455s \u0501d \u04cfl \u04bbh \u051bq"
    " \u051dw \u0433r \u043fn \u0442t \u043cm \u0432b \u044cb \u0451e \u0457i \u043dh \u043ak \u0410A \u0412B \u0415E"
    " \u041aK \u041cM \u041dH \u041eO \u0420P \u0421C \u0422T \u0425X \u0406I \u0408J \u0405S \u0423Y \u0417Z \u03bfo"
    " \u03c1p \u03bdv \u03b9i \u03bak \u03b1a \u03b5e \u03b7n \u03c4t \u03c5u \u03c7x \u03c9w \u03b3y \u0391A \u0392B"
    " \u0395E \u0396Z \u0397H \u0399I \u039aK \u039cM \u039dN \u039fO \u03a1P \u03a4T \u03a5Y \u03a7X \u0585o \u0578n"
    " \u057du \u0570h \u0581g \u0131i \u0237j \u0251a \u0261g \u026ai \u0280r \u028fy \u1d00a \u1d04c \u1d05d \u1d07e"
    " \u1d0bk \u1d0fo \u1d18p \u1d1bt \u1d1cu \u1d20v \u1d21w \u1d22z \u0192f \ua731s \ua730f \u0493f \u029fl \u0274n"
    " \u0262g \u029ch \u0257d \u0253b \u0256d \u0260g \u0266h \u0268i \u026dl \u0271m \u0273n \ua4d0B \ua4d1P \ua4d2d"
    " \ua4d3D \ua4d4T \ua4d6G \ua4d7K \ua4d9J \ua4daC \ua4dcZ \ua4ddF \ua4dfM \ua4e0N \ua4e1L \ua4e2S \ua4e3R \ua4e6V"
    " \ua4e7H \ua4eaW \ua4ebX \ua4ecY \ua4eeA \ua4f0E \ua4f2I \ua4f3O \ua4f4U \u13aaA \u13f4B \u13dfC \u13a0D \u13acE"
    " \u13c0G \u13bbH \u13a5i \u13abJ \u13e6K \u13deL \u13b7M \u13e2P \u13a1R \u13daS \u13a2T \u13d9V \u13b3W \u13c3Z"
    " \u13c2h \u01c0l \u03f2c \u03f9C \u027er \u212ee \u0259e \u01dde \u0269i"
    " \u2010- \u2012- \u2013- \u2014- \u2015- \u2212- \ufe58- \u2043- \u058a- \u02d7- \u05be- \u2796- \u2e3a-"
    " \u2e3b- \u30fc- \u2500- \u23af- \u1400- \u301c- \u2053- \u1806-"  # dashes drawn like a hyphen
    " \u02cd_ \u02ce_ \u07fa_ \u2017_ \ua78f. \u066b. \u02bb' \u2236: \u0589:"  # _, dots (Arabic's decimal one), ', :
    " \u27e8< \u27e9> \u3008< \u3009> \u2039< \u203a>"  # angle brackets drawn like a tag's
    ' \u201c" \u201d" \u201e" \u201f" \u2033" \u2036" \u02ba" \u00ab" \u00bb" \u300c" \u300d" \u300e" \u300f"'
    " \u2018' \u2019' \u201a' \u201b' \u2032'"  # quote marks: typographic, primes, guillemets (NFKC keeps them)
).split()
_CHEROKEE_SMALL = {  # Cherokee's small letters (U+AB70...) read as its capitals are, in lower case
    chr(ord(pair[0]) + 0xAB70 - 0x13A0): pair[1].lower()
    for pair in _LOOK_ALIKE_PAIRS
    if "\u13a0" <= pair[0] <= "\u13ef"
}
# Unicode's tag characters (U+E0020...U+E007E) spell ASCII invisibly ("ASCII smuggling"): a model may read them
_TAG_CHARACTERS = {chr(code + 0xE0000): chr(code) for code in range(0x20, 0x7F)}
_FLAG = re.compile("\U0001f3f4[\U000e0020-\U000e007e]{1,7}\U000e007f")  # a subdivision's flag: 🏴 + gbsct + cancel
# Letters in frames that normalisation leaves framed or in brackets (🅰, 🅐; ⒜ as "(a)"): "fancy text" for plain ones
_FRAMED = re.compile(r"(?:NEGATIVE )?(?:SQUARED|CIRCLED|PARENTHESIZED) LATIN (SMALL|CAPITAL) LETTER ([A-Z])")
_FRAMED_CHARACTERS = {
    char: found[2].lower() if found[1] == "SMALL" else found[2]
    for char in map(chr, [*range(0x249C, 0x24B6), *range(0x1F100, 0x1F1A0)])
    if (found := _FRAMED.fullmatch(unicodedata.name(char, "")))
}
# Digits in frames that normalisation keeps (❶, ➀, ➊, ⓫, ⓵, ⓿): a run of them is a number, one alone a list's mark
_FRAMED_DIGITS = re.compile("[\u2776-\u2793\u24eb-\u24ff]+")


def _framed_number(run: re.Match[str]) -> str:
    """``❶❷❺⓿`` (or ``➀500``) as 1250 (1500); one alone, ``❶ 250``, as a list's mark ``(1)``, no digit of the number
    after it; framed numbers past 9 (``⓫⓬``) each as a mark, never joined into one number."""
    numbers = [int(unicodedata.numeric(char)) for char in run[0]]
    before, after = run.string[run.start() - 1 : run.start()], run.string[run.end() : run.end() + 1]
    joined = max(numbers) < 10 and (len(numbers) > 1 or before.isalnum() or before == "-" or after.isalnum())
    return "".join(map(str, numbers)) if joined else " ".join(f"({number})" for number in numbers)


_LOOK_ALIKES = str.maketrans(
    {pair[0]: pair[1] for pair in _LOOK_ALIKE_PAIRS} | _CHEROKEE_SMALL | _TAG_CHARACTERS | _FRAMED_CHARACTERS
)
# JSON's escapes, and those of other languages a model reads as well: \xNN, \u{N...}, \UNNNNNNNN, octal \NNN, \N{NAME}
_ESCAPE = re.compile(
    r"\\(?:u([0-9a-fA-F]{4})|x([0-9a-fA-F]{2})|u\{([0-9a-fA-F]{1,6})\}|U([0-9a-fA-F]{8})|([0-7]{3})"
    r'|N\{([A-Z][A-Z0-9 -]{1,80})\}|(["\\/bfnrt]))'
)
_SIMPLE_ESCAPED = {"b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t"}


# How a document's source writes a quote mark or a hyphen: RTF (\'22, \'93, \ldblquote, \u8220?), troff (\(dq,
# \[dq], \*(L", \-) and TeX (``...'')
_DOCUMENT_QUOTE = re.compile(
    r"\\'([0-9a-fA-F]{2})|\\([lr](?:dbl)?quote)\b ?|\\u(\d{2,5})\?"
    r"|\\(?:\((dq|aq|lq|rq)|\[(dq|aq|lq|rq)\]|\*\(([LR])\"|(-))|``|''"
)
# one of those marks but TeX's closing '' and a bare \u (JSON's): RTF's \u8220? has its ?, TeX's `` is no fence
_DOCUMENT_MARK = re.compile(r"\\'[\da-fA-F]{2}|\\[(*\[-]|\\u-?\d{1,5}\?|\\[lr](?:dbl)?quote|(?<!`)``(?!`)")
_DOUBLED_QUOTE = re.compile(r"'[^'\n]*''")  # inside a string in single quotes, as YAML and SQL double it
_TROFF_MARKS = {"dq": '"', "aq": "'", "lq": "\u201c", "rq": "\u201d", "L": "\u201c", "R": "\u201d", "-": "-"}


_RTF_WORD = re.compile(r"\\([a-z]{1,32})-?\d{0,10} ?")  # an RTF control word: \par, \f0, \fs24


def _document_quotes(text: str) -> list[str]:
    """``text`` with a document's marks for quotes (``_DOCUMENT_QUOTE``) as those quotes, and an RTF's control words
    read away (``\\par`` a line's end); and with a YAML or SQL string's doubled ``''`` as one; each without markup
    too."""
    quoted = [_DOCUMENT_QUOTE.sub(_document_quote, text)] if _DOCUMENT_MARK.search(text) else []
    doubled = [text.replace("''", "'")] if _DOUBLED_QUOTE.search(text) else []
    read = [_RTF_WORD.sub(_rtf_word, each) if "{\\rtf" in each else each for each in quoted] + doubled
    return read + [_MARKUP.sub(r"\1", each) for each in read if _MARKUP.search(each)]  # **tool**, `tool`


def _rtf_word(word: re.Match[str]) -> str:
    return "\n" if word[1] in ("par", "line") else ""  # a paragraph's or a line's end; formatting shows nothing


def _document_quote(mark: re.Match[str]) -> str:
    """The character one of a document's marks (``_DOCUMENT_QUOTE``) writes."""
    hexadecimal, word, decimal, *troff = mark.groups()
    if hexadecimal:  # RTF's byte in the Windows code page
        return bytes([int(hexadecimal, 16)]).decode("cp1252", "replace")
    if word:
        return {"ldblquote": "\u201c", "rdblquote": "\u201d", "lquote": "\u2018", "rquote": "\u2019"}[word]
    if decimal:
        return chr(int(decimal)) if int(decimal) <= 0xFFFF else mark[0]
    return _TROFF_MARKS.get(next((name for name in troff if name), ""), '"')  # TeX's `` and '' a double quote


def _unescaped(match: re.Match[str]) -> str:
    """The character one escape (``_ESCAPE``) writes; as written when it names none."""
    hexadecimal, octal, named, simple = match.group(1, 2, 3, 4), match.group(5), match.group(6), match.group(7)
    code = next((int(digits, 16) for digits in hexadecimal if digits), int(octal, 8) if octal else None)
    if code is not None:
        return chr(code) if code <= 0x10FFFF else match.group()
    if named:
        with contextlib.suppress(KeyError):
            return unicodedata.lookup(named)
        return match.group()
    return _SIMPLE_ESCAPED.get(simple, simple)  # \n, \t, \" ...


_EMPHASIS = str.maketrans("", "", "*`")  # markdown emphasis and code marks around a value
# A link as chats and wikis write it, its target in a group: Slack's <target|text>, Jira's [text|target] and
# [target], MediaWiki's [target text], org's [[target][text]], AsciiDoc's target[text], Textile's "text":target
_TARGET = r"(?:mailto:|https?://)[^\s\[\]<>|]+"
_LINK = re.compile(
    rf"<({_TARGET})\|[^<>]*>|\[[^|\[\]]*\|({_TARGET})\]|\[({_TARGET})(?: [^\[\]]*)?\]"
    rf"|\[\[({_TARGET})\](?:\[[^\[\]]*\])?\]|({_TARGET})\[[^\[\]]*\]|\"[^\"]*\":({_TARGET})"
)
_WRAPPING_MARKS = "_~=^"  # more marks a renderer hides when they wrap a whole value (_r-17_, ~~r-17~~)


# A list item's marker: a bullet (any one sign but a bracket or a quote: -, *, •, →...), a checkbox, a heading's
# marks, a number or letter (``1.``, ``2)``, ``a.``, ``(iv)``, ``Step 1:``).
_LIST_MARKER = (
    r"(?:[^\w\s\"'{}\[\]()<>]|\[[ xX]?\]|#{1,6}|#\d{1,4}|(?:Step[ \t]+)?\d{1,4}[:/]"
    r"|\(?(?:\d{1,4}|[A-Za-z]|[ivxIVX]{1,5})[.)])"
)
_QUOTE_MARK = r"(?:(?:>[ \t]?)+[ \t]*)?"  # blockquote marks, nested
_LINE_PREFIX = re.compile(rf"^[ \t]*{_QUOTE_MARK}(?:{_LIST_MARKER}[ \t]+)*{_QUOTE_MARK}", re.MULTILINE)
_FENCE = re.compile(r"(?:`{3,}|~{3,})(?:[\w+-]{1,20}(?=\s))?")  # a fence's marks and language: a call may follow them
# An ideographic full stop in a host or an address, before a letter (a URL's dot, as browsers read it; not the end of
# a sentence before a number, 500。3天)
_HOST_DOT = re.compile(r"(?<=\w)\u3002(?=[A-Za-z])")
# A chat template's special token (<|python_tag|>, <|tool_call_argument_begin|>...) and the format it names after it
# (gpt-oss's <|constrain|>json): between a name and its arguments as open models write a call
_SPECIAL_TOKEN = re.compile(r"<\|[^<>|\s]{1,60}\|>(?:json\b)?")  # no space inside: not F#'s x <| f |> y
_HTML_TAG = re.compile(r"</?([A-Za-z][\w-]*)[^<>]{0,2000}>|<!--|-->")
_CDATA_MARKS = re.compile(r"<!\[CDATA\[|\]\]>")  # their text is read as text
_HIDDEN_HTML = re.compile(  # not rendered: a style sheet, a script, an element styled or marked hidden
    r"<(style|script)\b[^<>]{0,2000}>[^<]*</\1\s*>"
    r"|<(\w+)\b[^<>]{0,2000}?(?:display\s*:\s*none|visibility\s*:\s*hidden|\shidden(?=[\s>=/]))[^<>]{0,2000}>"
    r"[\s\S]{0,2000}?</\2\s*>",
    re.IGNORECASE,
)
_HYPHEN_BREAK = re.compile(r"(?<=\w)[-\u00ad]\n[ \t]*(?=\w)")  # a word hyphenated at a line's end: del-\nete
# Letters drawn alike in a tool's name: deIete_record, de1ete_record, de|ete_record, rec0rd (case aside); "\0": any
# character of another script for one letter of a word (no table lists every look-alike: ʂend, tr⍺nsfer), in a name of
# 5 letters or more (prose read through the tables holds shorter ones: раз reads "paз"); " ": between spaced-out letters
_ALIKE = {"l": "[li1|]", "i": "[il1|]", "o": "[o0]", "\0": r"[^\x00-\x7f\s]", " ": r"[^\w\n]"}
# by a name's length: in one of five letters or more, digits and signs drawn for letters too ("tr4n5fer", "tran$fer"),
# but for each word's first letter (``quoted_call`` writes it in upper case, which these tables leave as it is)
_DRAWN_ALIKE = {
    False: str.maketrans(_ALIKE),
    True: str.maketrans(_ALIKE | {"i": "[il1|!]", "a": "[a4@]", "e": "[e3]", "s": "[s5$]", "t": "[t7]"}),
}
_MARKDOWN_ESCAPE = re.compile(r"\\([ !-/:-@\[-`{-~])")  # transfer\_funds, ACC\-9, a shell's my\ file: the character
_BLOCK_TAGS = frozenset("p div br li ul ol tr td th table pre blockquote h1 h2 h3 h4 h5 h6 hr section article".split())
_HTML_ELEMENTS = _BLOCK_TAGS | frozenset(  # HTML's own elements: a call's tags (<function=...>, <invoke>) are not
    "a b i u s em strong code kbd samp var tt span small big sub sup mark del ins q cite abbr font center dl dt dd "
    "thead tbody tfoot caption header footer main nav aside details summary figure figcaption".split()
)
_NAME_CHAR = re.compile(r"[\w-]")  # a character a tool name may hold: a mention next to one is part of a word
# A label's colon written as another sign: ``Action = x``, ``Action - x``, ``Action Input => {...}``.
_LABEL_SIGN = re.compile(r"\b(Action(?:[ \t]*Input)?)[ \t]*(?:[=\u2013\u2014-]+>?|\u2192)[ \t]*", re.IGNORECASE)
_STEP_LINE = re.compile(r"^[ \t]*(?:Action|Observation)[ \t]*:", re.IGNORECASE | re.MULTILINE)  # a step's label
_INPUT_BEFORE = re.compile(r"^[ \t]*Action[ \t]*Input[ \t]*:", re.IGNORECASE | re.MULTILINE)  # before its Action
_INPUT_LABEL = re.compile(r"(?<=[^\s,;|])[ \t,;|]*(?=Action[ \t]*Input[ \t]*:)", re.IGNORECASE)  # on the Action's line
_TRAILING_COMMENT = re.compile(r"(?<![ \t])[ \t]+(?:#|//|--)[ \t][^\n]*$", re.MULTILINE)  # Action: x  # run this
_UPPER_TAG = re.compile(r"</?[A-Z][A-Z_]*\b[^<>]{0,2000}>?")  # <FUNCTION=x>, <INVOKE NAME=...>: in lower case
_TABLE_ROW = re.compile(r"^[ \t>]*\|", re.MULTILINE)  # a markdown table's row: its cells read as lines
_URL_ESCAPE = re.compile(r"%[0-9a-fA-F]{2}")  # a URL escape: a call or a name may be written with them
# Markup a renderer hides: a link or image, inline or by reference (its text stays), emphasis marks at a
# word's edge (``*a*``, ``__a__``, ``~~a~~``, a wiki's ``''a''``; ``a_b``, ``3 * 4`` stay) or a star or backtick
# inside one (``trans**fer**``, ``trans`fer``), BBCode (``[b]``; not a tag alone on its line: an INI file's [section]).
_MARKUP = re.compile(  # removed by .sub(r"\1"): a link leaves its text (group 1), the rest nothing
    r"!?\[([^\]\n]{0,300})\](?:\([^)\n]{0,500}\)|\[[^\]\n]{0,100}\])"
    r"|(?<=\S)\[/?[A-Za-z]{1,10}(?:=[^\]\n]{0,200})?\]|\[/?[A-Za-z]{1,10}(?:=[^\]\n]{0,200})?\](?=[ \t]*\S)"
    r"|(?<![\w`])`{1,3} (?=[^\s`])|(?<=[^\s`]) `{1,3}(?![\w`])"  # inline code padded with a space: `` a ``
    r"|(?<=[^\W_])(?:\*{1,3}|`{1,3})(?=[^\W_])"
    r"|(?<![\w*_~'])(?:[*_~`^]{1,3}|={2}|'{2,5})(?=[^\s*_~'])|(?<=[^\s*_~'])(?:[*_~`^]{1,3}|={2}|'{2,5})(?![\w*_~'])"
)
_PYTHON_LITERAL = re.compile(r"\b(?:True|False|None)\b")
_AS_JSON = {"True": "true", "False": "false", "None": "null"}
_NAMESPACE = re.compile(r"[\w./:-]{1,60}\Z")  # what may be a namespace before a name: functions., mcp__x__, a/
_IDENTIFIER = re.compile(r"[_.-]|[a-z][A-Z]")  # a name written as code; "a transfer (to: acme)" is a remark
# Between a name's words: "_", "-", ".", "::", " ", a padded column, one line break (a hard-wrapped mail, table
# cells); not a sentence's end ("delete. Record", 'delete." Record'), a list's comma ("bank transfer, money order"),
# a blank line, nor a line break before a record's next field ("Type: Transfer" over "Money in: 1,250.00")
_FIELD_NEXT = r"[ \t]*\n|[^\W\d][\w \t-]{0,30}:"  # after a line break: a blank line, or a record's next field
_NAME_GAP = rf"(?:(?![.!?;,][\"')\]*_~`\u201d\u2019]*\s)[^\w\n]|_|(?<![.!?;,])\n(?!{_FIELD_NEXT})){{0,4}}"
# Between a name's words as an API's path or an SQL statement writes them: "DELETE /api/v1/records", "DELETE FROM
# records", "INSERT INTO app.records" (not a sentence's words: "cancel any order" names no call)
_NAME_JOINT = (  # a table as SQL names it: "records", [dbo].[records], ONLY records, app.public.records
    r"(?:[ \t]*(?:/[a-z][a-z\d]{0,5}){1,2}/|[ \t\n]+(?:from|into)[ \t\n]+(?:only[ \t]+)?"
    r"(?:[\[\"`]?\w{1,30}[\]\"`]?\.){0,2}[\[\"`]?)"
)
# Between a name's words as code writes them, the verb last: records.delete, record_delete, RecordsDelete
_CODE_JOINT = r"(?:[._/:#\\-]|::|->|(?-i:(?<=[a-z])(?=[A-Z])))"  # Records\Delete, records#delete too
# the verb, not a word made of it (record_deleted, order_cancellation, user_updates, record_deleter): deleteById
_NOT_DONE = r"(?![a-z]?(?:e?d|ing|e?s|e?rs?|ions?|ations?|ments?)(?![a-z]))"
_NAME_WORDS = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+")  # the words of a tool's name (snake or camel case)
_URL = re.compile(r"\b[a-z][a-z0-9+.-]{1,20}://\S+", re.IGNORECASE)
_JSON_NUMBER = re.compile(r"-?\d{1,300}(?:\.\d{1,300})?(?:[eE][+-]?\d{1,3})?")
# A call's label before a tool's name, a key of its own at a line's start or after a sign (tool: x, action = x,
# - name: x, "command": x, a log's "msg": "action: x"; not a record's "Payment method: transfer"), or a section's [x]
_CALL_LABELS = r"(?:tool|tool[ _]?name|name|function|call|action|command|method|operation|uses)"  # uses: a CI step's
_NAME_LABEL = re.compile(
    rf"(?:(?:(?:^|[{{,;.!?&\"']|:(?=[ \t>]))[ \t>]*(?:[-*][ \t]+)?[\"']?{_CALL_LABELS}"
    rf"|(?<!:)\b(?:tool|name|function|call))"  # (not an RST field's :name:)
    rf"[\"']?[ \t]*[:=][ \t]*[\"']?"
    rf"|(?:^|[\"':])[ \t]*\[(?:[\w-]{{1,30}}\.)?)\Z",
    re.IGNORECASE | re.MULTILINE,
)
# between a name and its arguments: name | {...}, **name** {...}, name:0 {...}
_GAP_MARKS = " \t\n\"'`*|:,;=->\u2192" + digits
_METHOD_CALL = re.compile(r"\.(?:call|run|invoke|execute)[ \t]*(?=\()")
_JOINED_BY_WORD = re.compile(r"[ \t]+(?:with|using)[ \t]+(?=\{)", re.IGNORECASE)
_KEYED_NAME = re.compile(r"[\"']?[ \t]*:[ \t]*(?:#[^\n]*)?$", re.MULTILINE)  # share_file: as a mapping's key
# Before a call's arguments object in the lines after its name: a label on its line, then labels alone (args:, with:)
_OBJECT_HEAD = re.compile(
    r"[\"' \t,;|]*(?:[\w][\w \t-]{0,20}[:=][ \t]*)?(?:\n[ \t]*(?:[-*][ \t]+)?[\w][\w \t.-]{0,30}:?[ \t]*)*"
)
_AFTER_NAME_LINE = re.compile(r"\A([^\n]*\n)[ \t]*\n")  # a blank line right after the name's: the record goes on
_ACTION_BEFORE = re.compile(r"\bAction[ \t]*(?:\*\*|__)?[ \t]*:[ \t*_`'\"]*(?:[\w-]+\.)*\Z", re.IGNORECASE)


def quoted_call(
    name: str,
    arguments: dict[str, Any],
    sources: Iterable[str],
    as_arguments: Callable[[Any], Any] = lambda a: a,
    results: Sequence[str | tuple[str, Sequence[str]]] = (),
    asked: Sequence[str] = (),
    descriptions: Mapping[str, str] = _NONE,
    optional: Collection[str] = (),  # parameters with defaults: what the model adds for them leaves an echo one
    offered: Collection[str] = (),  # parameters whose values the tool's schema lists: the model's choice among them
    outside: Collection[str] = (),  # the sources that are data from outside (results), whichever name is looked for
) -> bool:
    """True when a call of ``name`` with ``arguments`` is written in one of ``sources``, or one of ``results`` (data
    from outside) names the tool with each of its values the user did not write (``asked``) near the name
    (``_named_with_values``), or a tool's description (``descriptions``, among ``sources``) shows the call (``_keyed``).
    ``as_arguments`` reads a call's arguments (``arguments``, each written call's) as the tool would get them (the
    gate: leniently, without defaults); one it cannot read is skipped, one nested too deeply counts as quoted."""
    wanted, user_wrote = None, functools.partial(_user_wrote, asked)  # compared once a written call is found
    fields = _flat_arguments(arguments) if any(isinstance(value, dict) for value in arguments.values()) else arguments
    telling = [value for value in fields.values() if value not in ("", None) and not isinstance(value, bool)]
    items = [item for value in telling for item in (value if isinstance(value, list) else [value])]  # a list's too
    values = [str(item).removesuffix(".0").casefold() for item in items]  # as written, flags aside
    keyed: list[str] = []  # the descriptions' forms read for arguments written after their names (``_keyed``)
    spellings = _spellings(name)
    for source in sources:
        for form in _forms(source, spellings, tables=source in descriptions.values(), numbers=True):
            padded = False
            for written in calls_written(form, spellings):
                try:
                    wanted = canonical(as_arguments(arguments)) if wanted is None else wanted
                except (ValueError, RecursionError):  # nested too deeply to compare: no model writes such a call
                    return True
                if written is PADDED:  # a text padded past a reader's limits: the values near the name decide
                    if not padded and _named_with_values(spellings, _values(as_arguments(arguments)), [form]):
                        return True
                    padded = True  # asked once per form
                    continue
                with contextlib.suppress(ValueError, TypeError, RecursionError):  # a call it cannot read: skipped
                    if _same_call(canonical(as_arguments(written)), wanted, optional, user_wrote, source in outside):
                        return True
            its_own = source == descriptions.get(name)  # read whole, below
            if source in descriptions.values() and not its_own and any(value in form.casefold() for value in values):
                keyed.append(form)  # names the tool and holds one of the call's values: read for its arguments
    own = plain(descriptions.get(name, ""))
    own = own if any(value in own.casefold() for value in values) else ""  # holds one: read for its arguments
    return bool(results or keyed or own) and _named_with_unsaid(
        spellings, as_arguments, arguments, asked, results, keyed, own, offered
    )


def _spellings(name: str) -> re.Pattern[str]:
    """The pattern of a tool's name in any spelling (``_spelt``), its letters drawn alike (``_DRAWN_ALIKE``)."""
    words = [word.lower() for word in _NAME_WORDS.findall(name)]
    longer = len("".join(words)) > 4  # 5 letters or more: also spaced out, or a letter per word in another script
    words = [w.capitalize() for w in words] if longer else words  # a first letter as written: 537713 no "settle"
    drawn = [[w, " ".join(w), *(w[:i] + "\0" + w[i + 1 :] for i in range(len(w)))] if longer else [w] for w in words]
    parts = [f"(?:{'|'.join(forms)})".translate(_DRAWN_ALIKE[longer]) for forms in drawn]
    one_word = rf"(?:(?<=__)|(?<!{_WORD})){''.join(parts)}(?!{_WORD})"  # its own word: not in updated_at, update_id
    return re.compile((_spelt(parts) if len(parts) > 1 else one_word) if parts else re.escape(name), re.IGNORECASE)


def _same_call(
    written: Any,
    wanted: Any,
    optional: Collection[str],
    user_wrote: Callable[[set[Any]], bool] = lambda _: False,
    outside: bool = False,  # ``written`` is in data from outside (a result), not the app's own words
) -> bool:
    """``_same_arguments``, as written, and with each object argument's fields as arguments of their own (``rule.to``):
    a field the model leaves out of an object, or adds to it, is read as a required argument left out or added is
    (in a result, a quote unless the user wrote the values; an app's own example leaves the rest to the model)."""
    if _same_arguments(written, wanted, optional, user_wrote, outside):
        return True
    if not (isinstance(written, tuple) and isinstance(wanted, tuple)):
        return False
    flat = (_fields(written), _fields(wanted))
    return flat != (written, wanted) and _same_arguments(*flat, optional, user_wrote, outside)


def _fields(call: tuple[Any, ...]) -> tuple[Any, ...]:
    """A call (``canonical``) with each object among its values as its fields, each under ``argument.field``."""
    pairs: list[tuple[Any, Any]] = []
    for key, value in call:
        is_object = isinstance(value, tuple) and all(
            isinstance(pair, tuple) and len(pair) == 2 and isinstance(pair[0], str) for pair in value
        )
        pairs += [(f"{key}.{field}", item) for field, item in _fields(value)] if is_object and value else [(key, value)]
    return tuple(sorted(pairs, key=itemgetter(0)))


def _same_arguments(
    written: Any,
    wanted: Any,
    optional: Collection[str],
    user_wrote: Callable[[set[Any]], bool] = lambda _: False,
    outside: bool = False,
) -> bool:
    """``written`` (``canonical``) is the call ``wanted``: the same values for the parameters without a default, one
    of them a value that says something, whatever the ``optional`` ones hold (the model's ``memo`` added, or the
    written one left out or changed, unless the user wrote the other values, ``user_wrote``: "send 120 to ACC-9 again"
    after a statement's row with its memo); or all of one call's values in the other, whose more values are for
    optional parameters, or are the model's for required ones ``written`` lacks when ``written`` is data from
    outside (``outside``: a result) and the user wrote neither its values nor those (a currency that
    ``wire(to="acct-4", amount=5)`` lacks; an app's generic example, ``create_event(title="Standup")``, or the
    model's own offer the user answers, "which days?", leaves the rest to the model).  A text that lists items
    (``a@x, b@y``) is read as a list where the other call has one there."""
    if not (isinstance(written, tuple) and isinstance(wanted, tuple)) or written == wanted:
        return bool(written == wanted)
    if _moved(written, wanted, user_wrote) or (outside and _kept(written, wanted, optional, user_wrote)):
        return True
    written = _as_theirs(written, wanted)  # then the model's as the written one reads now: the same where they agree
    wanted = _as_theirs(wanted, written)
    kept = {canonical(key) for key in optional}
    required = {pair for pair in written if pair[0] not in kept}
    if required and required == {pair for pair in wanted if pair[0] not in kept}:  # the model's own optional values:
        added = set(written) <= set(wanted)  # an echo; one without the written ones, unless the user wrote the rest
        return any(value not in _SAYS_LITTLE for _, value in required) and (added or not user_wrote(required))
    fewer, more = sorted((set(written), set(wanted)), key=len)
    if not fewer < more or all(value in _SAYS_LITTLE for _, value in fewer):
        return fewer == more
    extra = more - fewer  # what one call adds: for optional parameters only, an echo
    if {key for key, _ in extra} <= kept:
        return True
    items = {(key, item) for key, value in extra for item in (value if isinstance(value, tuple) else (value,))}
    said_extra = all(isinstance(item, str) and item not in _SAYS_LITTLE for _, item in items) and user_wrote(items)
    return outside and not (user_wrote(fewer) or said_extra)


def _moved(written: tuple[Any, ...], wanted: tuple[Any, ...], user_wrote: Callable[[set[Any]], bool]) -> bool:
    """A text of ``written`` (a call under a parameter's name of ``wanted``) that says something (five characters or
    more) is in ``wanted`` under another parameter, and the user did not write it: the page's ``to`` as the model's
    ``cc``, beside the user's own ``to``."""
    where: dict[Any, set[Any]] = {}
    for key, value in wanted:
        where.setdefault(value, set()).add(key)
    if not {key for key, _ in written} & {key for key, _ in wanted}:  # no parameter of the call: a record, not a call
        return False
    moved = {(other, value) for key, value in written if key not in where.get(value, {key}) for other in where[value]}
    moved = {(key, value) for key, value in moved if isinstance(value, str) and len(value) >= 5}
    return bool(moved) and not user_wrote(moved)


def _kept(written: tuple[Any, ...], wanted: tuple[Any, ...], optional: Collection[str], user_wrote: Any) -> bool:
    """A value of a required parameter of ``written`` (data from outside) that ``wanted`` keeps, the call completed
    with values for parameters ``written`` lacks, and the user did not write it: a page's ``role="owner"`` in the
    user's "give bob access" (a value put in place of one written, as of a placeholder ``<token>``, is no such)."""
    kept, keys = {canonical(key) for key in optional}, {key for key, _ in written}
    common = {(key, value) for key, value in set(written) & set(wanted) if key not in kept and isinstance(value, str)}
    common = {(key, value) for key, value in common if len(value) > 1 and value not in _SAYS_LITTLE}
    added = {key for key, _ in set(wanted) - set(written)}
    return bool(common) and bool(added) and not added & keys and not user_wrote(common)


# Currencies: their codes (not those that are English words: try 5, rub 2), and the signs and words that name them,
# each with every code it may mean, the one meant most first ("$" any dollar): one table for every reading below
_CURRENCY_CODES = (
    "usd|eur|gbp|jpy|chf|aud|nzd|cad|cny|hkd|sgd|inr|krw|sek|nok|dkk|pln|czk|huf|brl|mxn|zar|aed|thb|ils|uah|ngn|php"
    "|vnd|idr|myr"
)
_DOLLARS = "usd aud cad nzd hkd sgd".split()
_FAMILIES = {"$": _DOLLARS, "dollar": _DOLLARS, "buck": _DOLLARS, "¥": ["jpy", "cny"], "yen": ["jpy"], "yuan": ["cny"]}
_FAMILIES |= {"€": ["eur"], "euro": ["eur"], "£": ["gbp"], "pound": ["gbp"], "sterling": ["gbp"], "₹": ["inr"]}
_FAMILIES |= {"rupee": ["inr"], "rs": ["inr"], "franc": ["chf"], "fr": ["chf"], "kr": ["sek", "nok", "dkk"]}
_FAMILIES |= {"krona": ["sek"], "kronor": ["sek"], "krone": ["nok", "dkk"], "kroner": ["nok", "dkk"], "₩": ["krw"]}
_FAMILIES |= {"₽": ["rub"], "rouble": ["rub"], "ruble": ["rub"], "₺": ["try"], "lira": ["try"]}
_FAMILIES |= {"₪": ["ils"], "shekel": ["ils"], "฿": ["thb"], "baht": ["thb"], "₫": ["vnd"], "₴": ["uah"], "₦": ["ngn"]}
_FAMILIES |= {"₱": ["php"], "peso": ["mxn", "php"], "dhs": ["aed"], "dirham": ["aed"], "zł": ["pln"], "zloty": ["pln"]}
_FAMILIES |= {"reais": ["brl"], "rm": ["myr"], "rp": ["idr"]}  # not "won", "real", "rand": English words
_SIGNS = "".join(name for name in _FAMILIES if len(name) == 1)
_WORDS = "|".join(sorted((name for name in _FAMILIES if len(name) > 1), key=len, reverse=True))
_CURRENCY_NAME = re.compile(rf"[{_SIGNS}]|(?<![^\W\d_])(?:{_WORDS})s?(?![^\W\d_])", re.I)
_CURRENCY_CODE = re.compile(rf"(?<![^\W\d_])(?:{_CURRENCY_CODES})(?![^\W\d_])", re.I)
_PERCENT_SIGN = r"%|per ?cent(?![^\W\d_])"
_PERCENT = re.compile(_PERCENT_SIGN, re.I)
_UNIT = rf"[{_SIGNS}]|(?:{_CURRENCY_CODES}|{_WORDS})(?:s|es)?(?![^\W\d_])|{_PERCENT_SIGN}"
_UNIT_BESIDE_A_NUMBER = re.compile(rf"(?<![^\W\d_])({_UNIT}) ?(?=\d)|(?<=\d) ?-?({_UNIT})", re.I)
# An amount as a model reads it (``_read_as``, on ``canonical`` text): a currency's sign, code or word before or after
# it (not any three letters: acc 9 is an account)
_CURRENCY = rf"(?:[a-z]{{0,2}}\$|[{_SIGNS}¢]|(?:{_CURRENCY_CODES}|{_WORDS})s?\b\.?)"


def _as_codes(text: str) -> str:
    """``text`` with currencies' signs and words written as the code each means most (``_FAMILIES``' first)."""
    coded = _CURRENCY_NAME.sub(lambda name: f" {_currencies(name[0])[0]} ", text)
    return " ".join(coded.split())


def _currencies(name: str) -> list[str]:
    """The codes a currency's sign, word or code (``_CURRENCY_NAME``, ``_CURRENCY_CODE``) may mean."""
    name = name.lower()
    return _FAMILIES.get(name) or _FAMILIES.get(name.removesuffix("s")) or [name]


_AMOUNT = re.compile(rf"(?:{_CURRENCY} ?(?=\d))?([-+]?\d+(?:\.\d+)?)(?:[.,/]-)?(?: ?{_CURRENCY})?")  # no ACC-9
# What lists items in a text (``_read_as``): a comma, a semicolon, a bar, a slash, an ampersand, "and", a space
_ITEM_BREAK = re.compile(r"\s*(?:[,;|/&\u3001]|\band\b)\s*|\s+")


def _as_theirs(pairs: tuple[Any, ...], other: tuple[Any, ...]) -> tuple[Any, ...]:
    """A call's ``(key, value)`` pairs (``canonical``), each text read as the ``other`` call has it (``_read_as``)."""
    others = dict(other)
    return tuple((key, _read_as(value, others.get(key))) for key, value in pairs)


def _read_as(value: Any, theirs: Any) -> Any:
    """``value`` (``canonical``) as a model would echo it where another call has ``theirs``: a text that lists items
    as the list (``a@x, b@y``), an amount with its currency or digit groups as the number (``$4,820.00``; beside
    another text, ``4820 usd`` is no ``4820 eur``), an id with other signs between its parts (``rec88412``), words
    with others or none beside words joined by a sign (``factory reset`` beside ``factory_reset``), an id or a
    number with a few words or signs around it (``_decorated``: ``15%``, ``rec-88412 (stale)``)."""
    if not isinstance(value, str) or not isinstance(theirs, (str, tuple)):  # ``canonical`` writes no other
        return value
    if isinstance(theirs, tuple):
        return canonical([item for item in _ITEM_BREAK.split(value) if item])
    amount = _AMOUNT.fullmatch(_plain_numbers(value))
    if amount and _JSON_NUMBER.fullmatch(theirs) and _JSON_NUMBER.fullmatch(amount[1].lstrip("+")):
        return canonical(float(amount[1]) if "." in amount[1] else int(amount[1]))
    same_id = _ID.fullmatch(value) and _RUNS.findall(value) == _RUNS.findall(theirs)  # not a-b12 for ab-12
    words = _JOINED_WORDS.fullmatch(theirs) and _words(value) == _words(theirs)
    return theirs if same_id or words or _written_otherwise(value, theirs) else value


def _written_otherwise(value: str, theirs: str) -> bool:
    """``value`` is ``theirs`` (both ``canonical``) written another way: the same instant (``T`` or a space, the
    seconds, ``z`` or ``+00:00``), the same phone number's digits grouped otherwise, an address with its display
    name, with ``mailto:`` before it or a last ``/`` or ``.`` (not ``/..``), or decorated (``_decorated``)."""
    with contextlib.suppress(ValueError):
        if _ISO_TIME.match(value) and _ISO_TIME.match(theirs):
            one, other = datetime.fromisoformat(value.upper()), datetime.fromisoformat(theirs.upper())
            if one.tzinfo is None or other.tzinfo is None:  # a zone on one side only: as the clock reads
                one, other = one.replace(tzinfo=None), other.replace(tzinfo=None)
            if one == other:
                return True
    digits = [re.sub(r"\D", "", text) for text in (value, theirs)]
    if _PHONE.fullmatch(value) and _PHONE.fullmatch(theirs) and digits[0] == digits[1] and len(digits[0]) >= 7:
        return True
    named = _DISPLAY_NAMED.fullmatch(value)  # "desk" <x@y.test>: the address
    bare = [_ECHO_MARKS.sub("", text) for text in (value, theirs)]  # mailto:, a URL's or a path's last /, a last .
    same_bare = bool(bare[0]) and bare[0] == bare[1]
    return bool(named and named["address"] == theirs) or same_bare or _decorated(value, theirs)


_ECHO_MARKS = re.compile(r"\Amailto:|(?<=[^./])[./]\Z")  # not a scheme (http is no https) nor a path's /..


_DISPLAY_NAMED = re.compile(r"[^<>@\n]{0,80}<(?P<address>[^<>\s@]+@[^<>\s@]+)>")


_PHONE = re.compile(r"\+?[\d ().-]{7,40}")  # digits and the signs a phone number is grouped with


def _decorated(value: str, core: str) -> bool:
    """``value`` is ``core`` (an id or a number, ``canonical``) once, with only a few words or signs and no digit
    around it: a sign, a unit, a label or a remark (``#88412``, ``15%``, ``2048 gb``, ``approx. 4820``,
    ``id: rec-88412``, ``rec-88412 (stale)``; not a path or an address it begins: ``rec-88412/notes``)."""
    if not (_ID.fullmatch(core) or _JSON_NUMBER.fullmatch(core)) or _ID.fullmatch(value) or len(value) > len(core) + 30:
        return False  # an id of its own (acc-9, acc 9) is no decorated number
    pattern = rf"(?<![\w./@-]){re.escape(core)}(?![\w-]|[./@:]\w)"  # as written: a-b12 is no ab-12
    rest = re.sub(pattern, " ", value)
    words = re.findall(r"[^\W\d_]+", rest)
    return len(re.findall(pattern, value)) == 1 and not re.search(r"\d", rest) and len(words) <= 3


def _words(value: str) -> str:
    """A value's letters and digits alone: ``factory reset`` and ``factory-reset`` as ``factoryreset``."""
    return re.sub(r"[\W_]+", "", value)


def _spelt(parts: list[str]) -> str:
    """The pattern of a tool's name from its words' patterns: as written (words joined as ``_NAME_GAP`` says), as a
    path or a statement writes them (``_NAME_JOINT``), or as code writes them with the first word, the verb, last
    and the others perhaps plural (``records.delete``, ``Records.DeleteAsync``; not ``record_deleted``, nor words in
    a sentence: "the order cancel policy")."""
    verb_last = _CODE_JOINT.join([*(f"{part}(?:e?s)?" for part in parts[1:]), parts[0]]) + f"(?:async)?{_NOT_DONE}"
    verb_last += f"(?!(?:{_CODE_JOINT}|[ \t]){{0,4}}{parts[1]})"  # nor a namespace: mcp__records__delete_record
    return f"(?:{_NAME_GAP.join(parts)}(?:async)?)|(?:{_NAME_JOINT.join(parts)})|(?:{verb_last})"


def _named_with_unsaid(
    spellings: re.Pattern[str],
    as_arguments: Callable[[Any], Any],
    arguments: dict[str, Any],
    asked: Sequence[str],
    results: Sequence[str | tuple[str, Sequence[str]]],
    described: list[str],
    own: str,
    offered: Collection[str] = (),
) -> bool:
    """The value rule (``_named_with_values``) on ``results``, for the call's values the user did not write
    (``asked``; nor those that tell little where others tell more: one character, an option the tool's schema offers
    for an ``offered`` parameter, which the model may add of its own), and its keyed form (``_keyed``: the whole
    call, one value the user did not write) on ``described`` (the forms of descriptions that name the tool) and
    anywhere in ``own`` (the tool's own)."""
    try:
        arguments = as_arguments(arguments)
        values = _values(arguments)
    except (ValueError, RecursionError):
        return True
    said = _said_text(asked)
    reach = NEAR_CHARS + len("".join(values))  # for the whole call
    values = [value for value in values if not _said(value, said)]
    named = [(key, value) for key, item in arguments.items() for value in _values({key: item})]
    for result in results:  # a text, or a tool's words of a call of its own with that call's values (not evidence)
        text, spared = (result, ()) if isinstance(result, str) else result
        unspared = [value for key, value in named if value in values and f"{key}\0{value}" not in spared]
        telling = [value for key, value in named if value in unspared and key not in offered and len(value) > 1]
        unspared = telling or unspared
        if any(len(value) > 1 for value in unspared) and _named_with_values(spellings, unspared, [text]):
            return True
    if not (described or own):
        return False
    own_forms = _forms(own[:MAX_CALL_CHARS], _ANYWHERE, tables=True) if own else []
    whole = [text for form in own_forms for text in _value_texts(form)]
    near = [text for form in described for text in _value_texts(form)]
    nested = any(isinstance(value, dict) for value in arguments.values())  # an object's fields as the call's own:
    flat = _flat_arguments(arguments) if nested else arguments  # an example writes them so too
    prose = _keyed(flat, said, named=False)  # "send 1250 to ACC-9 with transfer": values the user did not say
    texts = (whole, near)
    # one value alone only when it is an id or an address (q3-minutes, a@x.test): not a word (express) nor a number
    alone = len(prose) == 1 and bool(_ITEM.fullmatch(str(canonical(flat[next(iter(prose))]))))
    return _example_in(_keyed(flat, said), flat, spellings, reach, texts) or (
        (len(prose) > 1 or alone) and _example_in(prose, flat, spellings, reach, texts, prose=True)
    )


def _flat_arguments(arguments: dict[str, Any], depth: int = 0) -> dict[str, Any]:
    """``arguments`` with each object's fields in its place (``{"payment": {"to": "a"}}`` as ``{"to": "a"}``), the
    first of a name kept."""
    flat: dict[str, Any] = {}
    for key, value in arguments.items():
        inner = _flat_arguments(value, depth + 1) if isinstance(value, dict) and depth < 8 else {key: value}
        flat.update({name: item for name, item in inner.items() if name not in flat})
    return flat


def _said_text(asked: Sequence[str]) -> str:
    """The user's words (``asked``), not a URL's parts, read as results are, and with their numbers (and currencies'
    codes) as written too; each URL they wrote whole, as one word (``_one_word``)."""
    written = "\n".join(asked)
    words = _flat(_URL.sub(" ", written))
    coded = [_as_codes(words)] if _CURRENCY_NAME.search(words) else []  # "£4,800": gbp 4800
    said = "\n".join([words, *(_plain_numbers(text) for text in (words, *_numbers_otherwise(words), *coded))])
    urls = " ".join(_one_word(_flat(url.rstrip(".,;:!?)>]'\""))) for url in _URL.findall(written))
    return said + "\n" + _ZERO_PADDED.sub("", said) + "\n" + urls  # "0500" is 500 as a value writes it


def _one_word(url: str) -> str:
    """A URL with its signs as one letter (``ǂ``): found whole only, no word inside it the user's own."""
    return re.sub(r"[\W_]", "\u01c2", url)


def _user_wrote(asked: Sequence[str], pairs: set[Any]) -> bool:
    """The user wrote (``asked``) each of the values of a call's ``(key, value)`` pairs (``canonical``) that says
    something."""
    said = _said_text(asked)
    values = [item for _, value in pairs for leaf in _leaves(value) for item in _items(leaf)]  # none said vacuously
    return all(_said(value, said) for value in values if value not in _SAYS_LITTLE)


def _example_in(
    patterns: dict[str, str],
    arguments: dict[str, Any],
    spellings: re.Pattern[str],
    reach: int,
    texts: tuple[list[str], list[str]],
    prose: bool = False,
) -> bool:
    """Descriptions' texts (``whole``: the tool's own, read whole; ``near``: others', near the tool's name) show the
    call as an example: each of ``patterns`` (by parameter) is found, and none of its values is one of several that
    a description allows, in any reading.  Values in ``prose`` (``patterns`` of values alone) count only near the
    tool's name, in its own description too (an app's defaults, "the lounge is zone ZN-4", are no example), and are
    listed only beside another of their kind (``_shape``); one value alone (an id), only in another tool's
    description (a poisoned server's ``delete_note q3-minutes``)."""
    whole, near = texts
    listed = [pattern + _listed_after(key, arguments) for key, pattern in patterns.items()]
    if prose:
        whole, near = [], [*whole, *near] if len(patterns) > 1 else near
        listed = [pattern + _LISTED_LIKE.format(_shape(canonical(arguments[key]))) for key, pattern in patterns.items()]
    if not patterns or any(re.search(pattern, text) for pattern in listed for text in [*whole, *near]):
        return False
    return any(all(re.search(pattern, text) for pattern in patterns.values()) for text in whole) or _named_near(
        spellings, list(patterns.values()), reach, near
    )


_SAYS_LITTLE = ("", "null", "true", "false")  # values that are no evidence of a quote: any call may have them
# In prose, a value is one of several allowed only beside another of its kind ("21 or 23", "ACC-1, ACC-2"): ", then
# answer the user" after an amount lists nothing
_LISTED_LIKE = r"(?=[\"'`*]*[ \t]*(?:[|/,;]|,?[ \t]*or\b)[ \t]*[\"'`*]*(?:{})(?![\w@-]))"


def _shape(value: str) -> str:
    """The pattern of a value of ``value``'s kind (``canonical``), as prose lists others: a number, an address, a
    path, a name with digits (``acc-2``), a word."""
    if _JSON_NUMBER.fullmatch(value):
        return r"\d[\d.,]*"
    if "@" in value:
        return r"[\w.+-]+@[\w.-]+"
    if value.startswith(("/", "~", "./")):
        return r"[~.]?/[\w./-]*"
    if any(char.isdigit() for char in value):  # a name with digits beside another: not beside a number alone
        return r"(?=[\w.-]*\d)(?=[\w.-]*[^\W\d_])[\w.-]+"  # each part read once: linear
    return r"[^\W\d]\w*"


def _values(arguments: dict[str, Any]) -> list[str]:
    """The call's argument values (``canonical``; JSON text as its values, ``_leaves``; a text that lists items as
    them, ``_items``), except those that say little (``_SAYS_LITTLE``)."""
    values = [item for leaf in _leaves(arguments) for item in _items(leaf)]
    return [value for value in values if value not in _SAYS_LITTLE]


# What lists items in a text a model writes as one value: as ``_ITEM_BREAK`` says, but not a slash (it is compared
# there with a list; here its items are looked for alone, and a URL or a path holds slashes); each item an address,
# a URL or an id of letters and digits
_LISTED_ITEMS = re.compile(r"\s*(?:[,;|&\u3001]|\band\b)\s*|\s+")
_ITEM = re.compile(
    r"[\w.+-]+@[\w.-]+|[a-z][a-z0-9+.-]{1,20}://\S+|(?=[\w.:/#-]*[^\W\d_])(?=[\w.:/#-]*\d)[\w.:/#-]{1,64}"
)
MAX_ITEMS = 50  # more items in a text are read as one value, as written (each item is looked for on its own)


def _items(value: str) -> list[str]:
    """A text value (``canonical``) that lists addresses, URLs or ids of letters and digits (``a@x, b@y``, ``a@x and
    b@y``, one a line) as those items, in any order; any other text (numbers in groups: a phone's, a card's) as
    itself."""
    items = [item for item in _LISTED_ITEMS.split(value) if item]
    return items if 1 < len(items) <= MAX_ITEMS and all(_ITEM.fullmatch(item) for item in items) else [value]


# An amount with its currency's code (rub and try too: beside a number in a value), or a percent (in a value read by
# ``_as_codes`` and ``_plain_numbers``)
_CODE = f"{_CURRENCY_CODES}|rub|try"
_MEASURED = re.compile(rf"(?:({_CODE}) ?)?([-+]?\d+(?:\.\d+)?)(?: ?(?:({_CODE})|({_PERCENT_SIGN})))?", re.I)


def _amount(value: str) -> tuple[str, str] | None:
    """A text value that is an amount with its currency or a percent (``£4,800``, ``4800 eur``, ``50 %``) as its
    number and its currency's code (or ``%``); None for any other."""
    measured = _MEASURED.fullmatch(_plain_numbers(_as_codes(value)))
    if not measured or bool(measured[1]) + bool(measured[3]) + bool(measured[4]) != 1:
        return None
    return measured[2].lstrip("+"), (measured[1] or measured[3] or "%").lower()


def _amount_readings(value: str) -> list[str]:
    """An amount or a percent as pages write it (``_amount``): ``4800 eur`` and ``eur 4800``; ``50%``, ``50 %``,
    ``50 percent``, ``50 pct``..."""
    amount = _amount(value)
    if amount is None:
        return []
    number, unit = amount
    if unit == "%":
        return [number + sign for sign in ("%", " %", " percent", "-percent", " per cent", " pct")]
    return [f"{number} {unit}", f"{unit} {number}"]


def _named_with_values(spellings: re.Pattern[str], values: list[str], sources: list[str]) -> bool:
    """A source names the tool (``spellings``) with each of the call's values within ``NEAR_CHARS`` of the name, or
    anywhere in a request that names it (``requests_naming``: an HTTP request with its body, a curl command): a
    call in any syntax (a table row, YAML, a command line, a call padded past the readers' limits).  Asked of tool
    results and padded texts only: a user's own words name a tool and its values to ask for the call."""
    forms = [form for source in sources for form in _forms(source, spellings)]
    forms += [_BESIDE_A_CURRENCY.sub(_ungrouped, form) for form in forms if _BESIDE_A_CURRENCY.search(form)]
    needles = ["(?:" + "|".join(map(_value_pattern, _value_readings(value))) + ")" for value in values]
    texts = [text for form in forms for text in _value_texts(form)]
    if _named_near(spellings, needles, NEAR_CHARS + len("".join(values)), texts):
        return True
    requests = [request for text in dict.fromkeys([*sources, *forms]) for request in requests_naming(text, spellings)]
    texts = [text for request in requests for form in _forms(request, spellings) for text in _value_texts(form)]
    return bool(needles) and any(all(re.search(needle, text) for needle in needles) for text in texts)


def _named_near(spellings: re.Pattern[str], needles: list[str], reach: int, texts: list[str]) -> bool:
    """A text (a reading of a source as values are looked for in it, ``_value_texts``) names the tool with each
    of ``needles`` (patterns: a value, or a value after its parameter's name) within ``NEAR_CHARS`` before a
    mention or ``reach`` after it."""
    for text in texts if needles else ():
        for number, mention in enumerate(spellings.finditer(text)):
            near = text[max(0, mention.start() - NEAR_CHARS) : mention.end() + reach]
            padded = number >= MAX_NAME_MENTIONS  # a source padded with mentions: the values anywhere in it
            if all(re.search(needle, text if padded else near) for needle in needles):
                return True
            if padded:
                break
    return False


@functools.lru_cache(maxsize=16)  # a padded text's forms are read again for each of its forms: once is enough
def _value_texts(form: str) -> tuple[str, ...]:
    """``form`` flat (``_flat``) as values are looked for in it: as rendered (tags gone) and with its tags'
    attributes (``<meta content="...">``), each with its numbers written as ``canonical`` writes them."""
    flat, tagged = _flat(form), " ".join(plain(html.unescape(form)).split()).casefold()
    variants = [variant for text in (flat, tagged) for variant in (text, _plain_numbers(text))]
    variants += [_ZERO_PADDED.sub("", variant) for variant in variants[1::2]]
    others = _digits_drawn(flat) + _written_apart(flat) + _written_apart(tagged)  # <at>: a tag to a renderer
    others += [_as_codes(flat)] if _CURRENCY_NAME.search(flat) else []
    others += [_flat(_CAMEL_JOINT.sub("_", form))] if _CAMEL_JOINT.search(form) else []  # RecordDelete, as written
    return tuple(dict.fromkeys([*variants, *(_plain_numbers(other) for other in others)]))


_CAMEL_JOINT = re.compile(r"(?<=[a-z])(?=[A-Z])")  # where camel case joins words: its case is gone from flat text
# Words and digits a value joins with one sign ("Mallory 7731", "Ada #4471" for ada-4471, "eco boost" for eco_boost)
_SEPARATED = re.compile(r"(?<=[^\W_])[ \t_#/.-]+(?=[^\W_])")
_MONTHS = "jan feb mar apr may jun jul aug sep oct nov dec".split()
# A date in words ("May 1st, 2024", "1 May 2024", "3-June-2025") as ISO writes it (``_written_apart``)
_MONTH = (
    r"(jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?"
    r"|nov(?:ember)?|dec(?:ember)?)\b\.?"
)
_MONTH_DATE = re.compile(
    rf"\b(?:(\d{{1,2}})(?:st|nd|rd|th)?(?: of)?[ /-]{_MONTH}|{_MONTH}[ /-](\d{{1,2}})(?:st|nd|rd|th)?),?"
    r"[ /-](\d{4})\b"
)
# a month of a year: "March 2025", "03/2025" (as ISO writes it: 2025-03)
_YEAR_MONTH = re.compile(rf"\b{_MONTH},?[ /-](\d{{4}})\b|(?<![\d/.-])(0?[1-9]|1[0-2])/(\d{{4}})(?![\d/]|[.-]\d)")


def _month_date(date: re.Match[str]) -> str:
    """A date with its month's name (``_MONTH_DATE``) as ISO writes it; as written when its day is none."""
    day, month = (date[1], date[2]) if date[1] else (date[4], date[3])
    return f"{date[5]}-{_MONTHS.index(month[:3]) + 1:02}-{int(day):02}" if 1 <= int(day) <= 31 else date[0]


def _year_month(month: re.Match[str]) -> str:
    """A month of a year (``_YEAR_MONTH``) as ISO writes it: 2025-03."""
    number = _MONTHS.index(month[1][:3]) + 1 if month[1] else int(month[3])
    return f"{month[2] or month[4]}-{number:02}"


def _said(value: str, said: str) -> bool:
    """The user wrote ``value`` (``canonical``), in ``said`` (their words, ``_said_text``, with their dates in words
    read as ISO writes them by ``_written_apart``): as written, in another reading (``_value_readings``), a URL they
    wrote whole, an amount's number in no currency but its own (``4800 eur`` in "pay 4800"), or their way
    (``_said_as_values``): for a value with a letter in it, with other signs between its words and digits, or none
    (``ADA4471``; not digits alone: ``acme 4820`` is no ``-4820``)."""
    for reading in _value_readings(value):  # as written, or a URL written whole
        if _found(reading, said) or (_URL.fullmatch(reading) and _found(_one_word(reading), said)):
            return True
    if (amount := _amount(value)) and _found(amount[0], said):  # their number, its unit the model's to add...
        named = {unit for unit in _units_named(said) if (unit == "%") == (amount[1] == "%")}
        if not named or (amount[1] in named and amount[1] != "%"):  # ...unless they named another (any percent)
            return True
    spelt = [_SEPARATED.sub("-", value), _words(value)]
    return bool(re.search(r"[^\W\d_]", value)) and any(_found(form, _said_as_values(said)) for form in spelt)


@functools.lru_cache(maxsize=8)  # asked once per amount of a call: read once per call
def _units_named(said: str) -> frozenset[str]:
    """The codes of the currencies the user's words name beside a number (``_currencies``: ``$`` is any dollar;
    "Lira's account", "CAD drawings" name none), and ``%`` if they write a percent of a number."""
    names = [unit for found in _UNIT_BESIDE_A_NUMBER.finditer(said) for unit in found.groups() if unit]
    return frozenset(code for name in names for code in _currencies("%" if _PERCENT.fullmatch(name) else name))


@functools.lru_cache(maxsize=8)  # asked once per value of a call: read once per call
def _said_as_values(said: str) -> str:
    """The user's words (``_said_text``) as a call writes values: their words and digits joined with one sign."""
    return _SEPARATED.sub("-", said)


def _found(value: str, text: str) -> bool:
    """``value`` is in ``text`` (the user's words, read as written too) as a word, or as a number (``500`` in
    ``$500``, ``500usd``; not in ``1500``, nor in ``1,500`` or ``500,000`` as written)."""
    grouped = _JSON_NUMBER.fullmatch(value) is not None
    return re.search(rf"(?<!\d,){_value_pattern(value)}(?!,\d)" if grouped else _value_pattern(value), text) is not None


# A word's character in a script that spaces its words: Chinese, Japanese and Korean do not, so a value or a name
# written right beside their characters (请发送给a@x.test) is a word of its own
_UNSPACED = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff"  # kana, CJK ideographs, Hangul
_WORD, _ID_CHAR = f"[^\\W{_UNSPACED}]", f"[^\\W_{_UNSPACED}]"


def _value_pattern(value: str) -> str:
    """The pattern of ``value`` (``canonical``) as ``_found`` finds it; an id of letters and digits, or words joined
    by a sign (``factory_reset``), written with other signs between its parts, or none (``REC88412``, ``rec_88412``
    for ``rec-88412``; a UUID without dashes; ``Factory Reset``)."""
    if _JSON_NUMBER.fullmatch(value):
        return rf"(?<![\d.]){re.escape(value)}(?!\.?\d)"
    value = value.rstrip(".!?") or value  # a sentence's end mark aside
    chunks = [(chunk, _RUNS.findall(chunk)) for chunk in _ID_SIGN.split(value)]  # rec88412: rec, then 88412
    parts = [part for chunk, runs in chunks for part in (runs if len(runs) == 2 else [chunk]) if part]
    if len(parts) < 2 or not (_ID.fullmatch(value) or _JOINED_WORDS.fullmatch(value)):
        deeper = "|/\\w" if "/" in value else ""  # a path or URL: not the start of a deeper one
        return rf"(?<!{_WORD}){re.escape(value)}(?!{_WORD}{deeper})"
    return rf"(?<!{_ID_CHAR})" + "[-_. /:]?".join(map(re.escape, parts)) + rf"(?!{_ID_CHAR})"


_ID = re.compile(r"(?=.*[^\W\d_])(?=.*\d)[\w.-]{3,64}|[\w]{1,64}(?: [\w]{1,64}){1,3}(?<=\d)")  # rec-88412, acc 9
_ID_SIGN = re.compile(r"[-_. ]+")
_JOINED_WORDS = re.compile(r"[^\W\d_]{2,}(?:[-_.][^\W\d_]{2,}){1,3}")  # factory_reset: Factory Reset, FactoryReset
_RUNS = re.compile(r"[^\W\d_]+|\d+")  # the letters and the digits of an id's part


# Between a parameter's name and its value in a description, in any call's syntax or a sentence: a sign (":", "=",
# ">", "|", an arrow or dash, a tag) or a linking word or space after quote or emphasis marks, then spaces, marks or
# tags: "record_id": "r-17", amount=500, <parameter=record_id>\nr-17, | record_id | r-17 |, <dt>record_id</dt><dd>r-17,
# --record-id r-17, record_id \u2014 r-17, "the record_id is r-17"
_PAIR_SIGN = (
    r"[:=>|~\u2192\u21d2\u279c\u27f6\u2014\u2013\u2254-]|<[^<>]{0,40}>|\s(?:is|as|of|to|set to|equals?|must be)?\s?"
)
_PAIR_GAP = rf"[^\w<:=>|\s]{{0,3}}(?:{_PAIR_SIGN})(?:[^\w<]|<[^<>]{{0,40}}>){{0,16}}?"
# After a value, a sign that it is one of the values a parameter allows, listed ("unit: c | f", "a or b", "a; b",
# "state: open, closed", "- a - b", "a (metric) or b", through markup) or defined ("visibility: private: only you");
# a call's next argument after a comma is a name and a sign ("to: a, amount: 5"), a table's cell ends in "|"
_LISTED = (
    r"(?=(?:[\"'`*]|</?\w+>)*[ \t]*(?:\([^()\n]{0,40}\)[ \t]*)?"
    r"(?:[|/][ \t]*[\w\"'`*<]|[:;]|-[ \t]|,?[ \t]*or\b|,[ \t]*[\w./-]+(?![\w./-]|[ \t]*[:=])))"
)

# ...but what follows a separator is the call's next argument, not another allowed value, when it is one of the
# call's other parameter names ("to=a; amount=5", "to: a - amount: 5", ":to a :amount 5"; "mode: a; mode: b" lists)
_NOT_NEXT = r"(?!(?:[\"'`*]|</?\w+>)*[ \t]*(?:[|/:;,-][ \t]*)?:?(?:{keys})(?!\w))"


def _keyed(arguments: dict[str, Any], said: str, named: bool = True) -> dict[str, str]:
    """Each of the call's arguments that says something (not a flag documented as ``force: true``) as the
    pattern of its parameter's name (in any spelling), ``_PAIR_GAP`` and its value (not ``named``: its value
    alone, of two characters or more, if the user did not write it): the whole call, as an example writes it (a
    list of ids or addresses as its items in the model's order); none when a value is not a single one or such a
    list, or when the user wrote (``said``) every value longer than a character: then the call is the user's,
    whatever a description shows.  By parameter name."""
    pairs, unsaid = {}, False
    for key, written in arguments.items():
        value = canonical(written)
        listed = isinstance(written, (list, tuple)) and 1 < len(value) <= MAX_ITEMS  # its items, in the model's order
        items = tuple(dict.fromkeys(map(canonical, written))) if listed else (value,)
        if listed and any(not isinstance(item, str) or _PLAIN_WORDS.fullmatch(item) for item in items):
            return {}  # words (outage, billing): as likely the values a description allows as an example's
        if not isinstance(key, str) or not all(isinstance(item, str) for item in items):
            return {}
        if value in _SAYS_LITTLE or (not named and (len(items) > 1 or len(value) < 2 or _said(value, said))):
            continue
        keyed = rf"(?<!\w){_key_pattern(key)}{_PAIR_GAP}" if named else ""
        pairs[key] = keyed + _ITEM_GAP.join(map(_value_pattern, items))  # listed in the model's order
        unsaid = unsaid or any(len(item) > 1 and not _said(item, said) for item in items)
    return pairs if unsaid else {}


_PLAIN_WORDS = re.compile(r"[^\W\d_]+(?:[ _-][^\W\d_]+)*")  # not an id, an address or a number
_ITEM_GAP = r"(?:[\W_]|\band\b){1,20}?"  # between a list's items as a text lists them: "a, b", "a and b", lines


def _listed_after(key: str, arguments: dict[str, Any]) -> str:
    """``_LISTED``, unless what follows the value of ``key`` is another of the call's parameters (``_NOT_NEXT``)."""
    others = [_key_pattern(other) for other in arguments if other != key]
    return (_NOT_NEXT.format(keys="|".join(others)) if others else "") + _LISTED


def name_words(name: Any) -> list[str]:
    """The words of a tool's or a parameter's name, in lower case (``recordId``, ``record_id``: record, id)."""
    return [word.lower() for word in _NAME_WORDS.findall(str(name))]


def _key_pattern(key: Any) -> str:
    """The pattern of a parameter's name in any spelling: record_id, recordId, record id."""
    words = name_words(key) if str(key).isascii() else []  # lower case is case folded for ASCII
    return _NAME_GAP.join(words) if words else re.escape(str(key).casefold())


_EUROPEAN_NUMBER = re.compile(r"(?<![\d.,])(\d{1,3}(?:\.\d{3})+),(\d+)(?!\d|[.,]\d)")  # 1.250,50
_ZERO_PADDED = re.compile(r"(?<![\w.])0+(?=\d)")  # 0000500 in a table's column
_GROUP_SIGN = "[,'_ \u00a0\u2009\u202f\u066c\u02bc\u00b7]"  # between a number's groups of three digits: 1 500
_GROUPED_DIGITS = re.compile(rf"(?<![\w.])(?<!\w-)-?\d{{1,3}}(?:{_GROUP_SIGN}\d{{3}})+(?!\d)")  # not "acme-77 500"
_INDIAN_NUMBER = re.compile(r"(?<![\d.,])\d{1,2}(?:,\d{2})+,\d{3}(?![\d,]|\.\d)")  # 1,50,000
# Thousands grouped by dots, as much of Europe writes them: 1.500.000 and 1.500,- EUR say so; 1.500 alone is 1500 to
# some and 1.5 to others, so it is read both ways in a call written out and in the user's words (``_numbers_otherwise``)
_GROUPED_BY_DOTS = re.compile(r"(?<![\d.,])\d{1,3}(?:\.\d{3}){2,}(?![\d.]|,\d)|(?<![\d.,])\d{1,3}(?:\.\d{3})+(?=,-)")
# Beside a currency, 5.000 is 5000 to many (€5.000, 5.000 EUR, EUR 5.000): read so too, beside the tool's name
_BESIDE_A_CURRENCY = re.compile(
    rf"(?:(?<=[{_SIGNS}])|(?<=[{_SIGNS}] )|(?<=\b(?:{_CURRENCY_CODES}) ))\d{{1,3}}(?:\.\d{{3}})+(?!\d|[.,]\d)"
    rf"|(?<![\d.,])\d{{1,3}}(?:\.\d{{3}})+(?= ?(?:[{_SIGNS}]|(?:{_CURRENCY_CODES})(?![^\W\d_])))",
    re.IGNORECASE,
)
_DOTTED_THOUSANDS = re.compile(r"(?<![\d.,])\d{1,3}(?:\.\d{3})+(?!\d|[.,]\d)")  # 1.500, 1.500. too
# a number written with letters drawn like its digits: 5OO, l500, 5〇〇 (three characters or more, "o" and "l" only:
# an "i7" or "l2" is a name)
_DIGITS_DRAWN = re.compile(r"(?<![\w.])(?=[\doO〇l]*[oO〇l])(?=[oO〇l]*\d)[\doO〇l]{3,}(?![\w.])")
_AS_DIGITS = str.maketrans("oO〇l", "0001")


def _digits_drawn(text: str) -> list[str]:
    """``text`` with its numbers written with letters drawn like digits read as those digits, if it has any."""
    return [_DIGITS_DRAWN.sub(lambda m: m[0].translate(_AS_DIGITS), text)] if _DIGITS_DRAWN.search(text) else []


def _ungrouped(number: re.Match[str]) -> str:
    return number[0].replace(".", "")


def _numbers_otherwise(text: str) -> list[str]:
    """``text`` with its numbers read as other writers may mean them: ``1.500`` as 1500 (``_DOTTED_THOUSANDS``),
    ``_digits_drawn`` and ``_written_apart``; none when there is no such number."""
    dotted = [_DOTTED_THOUSANDS.sub(_ungrouped, text)] if _DOTTED_THOUSANDS.search(text) else []
    return dotted + _digits_drawn(text) + _written_apart(text)


# Values people write apart or guarded, and a model writes together: digits in groups (an IBAN, a card, a phone
# number: "DE89 3704 0044 ...", "GB29 NWBK 6016 ...", "+1 (555)010-9999", "12-3456-7890123-00"; 7 digits or more),
# a date in numbers (01.05.2024, 5/1/2024, 2024/05/01: ISO, day or month first), a time (10h30, 2:30 pm,
# 2024-05-01T10:30), a decimal comma ("12,50"), an address defanged ("hxxps[://]x[.]example", "bob [ at ] x (dot) com")
# or spelt out ("bob at x dot com")
_DIGIT_GROUP = r"\(?\d[\da-z]{0,6}\)?"
_DIGIT_GROUPS = re.compile(
    r"(?<![\w+.])(?<!\w-)\+?(?:[a-z]{2}\d{2}(?:[ ./_-]?[\da-z]{4})?(?:[ ./_-]?(?=[a-z]{0,3}\d)[\da-z]{4}){1,7}"
    r"(?:[ ./_-]?\d[\da-z]{0,3})?"  # an IBAN in fours, its bank's letters too
    rf"|(?:[a-z]{{2}}\d{{2}}|{_DIGIT_GROUP})(?:(?:[ ./_\u00b7-]|(?<=\))){_DIGIT_GROUP}){{2,}})(?!\w|[.-]\w)",
    re.I,
)
_NUMERIC_DATE = re.compile(r"(?<![\d.,/-])(\d{1,4})[./-](\d{1,2})[./-](\d{1,4})(?![\d/]|[.,-]\d)")
_TIME = re.compile(r"(?<=\d)t(?=\d{1,2}:\d\d)|(?<![\w:])(\d{1,2})(?:h(\d\d)?|(?:[:.](\d\d))? ?([ap])\.?m\b\.?)", re.I)
_DOT_TIME = re.compile(r"(?<![\w:.,])([01]?\d|2[0-3])\.([0-5]\d)(?!\d|[.,]\d)")  # 14.30: a time to some
_DECIMAL_COMMA = re.compile(r"(?<![\d.,])(\d+),(\d{1,2})(?![\d,]|\.\d)")
_DEFANGED = re.compile(r"[ \t]?[\[({<][ \t]?(\.|@|:|://|dot|at)[ \t]?[\])}>][ \t]?|\bhxxp(?=s?(?::|[\[(]:))", re.I)
_SPELT_ADDRESS = re.compile(  # "at" or a dot spelt out or spaced: bob at x dot test, bob at x.test, bob @ x . test
    r"(?<![\w.@])[\w.+-]{1,64}(?:(?: at | @ )[\w-]{1,63}(?:(?: dot | \. |\.)[\w-]{1,63})+"
    r"|@[\w-]{1,63}(?:\.[\w-]{1,63})*(?: dot | \. )[\w-]{1,63}(?:(?: dot | \. |\.)[\w-]{1,63})*)\b",
    re.I,
)
_CLOCK = re.compile(r"(?<![\w:.])(\d)(:\d\d)(?!\d|\.\d)")  # an hour of one digit: 9:30 as 09:30
_CJK_DATE = re.compile(r"(\d{4}) ?[年년] ?(\d{1,2}) ?[月월] ?(\d{1,2}) ?[日일]?")  # 2025年6月4日, 2025년 6월 4일
# A date and a time written apart, once both are as ISO writes them: "2026-08-04 at 15:00", "15:00 on 2026-08-04"
_DATE_AT_TIME = re.compile(r"(\d{4}-\d\d-\d\d)[ \t,]+(?:(?:at|@|from|um|à|alle|om)[ \t]+)?(\d\d:\d\d)", re.I)
_TIME_ON_DATE = re.compile(r"(\d\d:\d\d)[ \t,]+(?:(?:on|am|le|il|op)[ \t]+)?(\d{4}-\d\d-\d\d)", re.I)
# An IPv6 address with "::" or all eight groups (not a time, 10:30:00): read compressed, as a model writes it
_IPV6 = re.compile(r"(?<![\w:.])(?=[\da-f:]*::|(?:[\da-f]{1,4}:){7})(?:[\da-f]{0,4}:){2,7}[\da-f]{0,4}(?![\w:.])", re.I)
_APART = (_NUMERIC_DATE, _MONTH_DATE, _YEAR_MONTH, _TIME, _DOT_TIME, _CLOCK, _DIGIT_GROUPS, _DECIMAL_COMMA, _DEFANGED)
_WRITTEN_APART = re.compile("|".join(pattern.pattern for pattern in (*_APART, _IPV6, _SPELT_ADDRESS, _CJK_DATE)), re.I)


def _written_apart(text: str) -> list[str]:
    """``text`` with its values written apart or guarded (``_WRITTEN_APART``) written together: dates and times as
    ISO writes them (the day first and, where that differs, the month first; a date and its time as one value), and
    digit groups joined; none if it has none."""
    if not _WRITTEN_APART.search(text):
        return []
    refanged = _SPELT_ADDRESS.sub(_spelt_address, _DEFANGED.sub(_refanged, text))
    refanged = _IPV6.sub(_compressed, refanged) if ":" in text else refanged
    common = _YEAR_MONTH.sub(_year_month, _MONTH_DATE.sub(_month_date, _DECIMAL_COMMA.sub(r"\1.\2", refanged)))
    common = _CJK_DATE.sub(lambda date: f"{date[1]}-{int(date[2]):02}-{int(date[3]):02}", common)
    firsts = dict.fromkeys((True, _NUMERIC_DATE.search(text) is None))  # 5/1/2024 is May 1 in the US
    dated = [_timed(_NUMERIC_DATE.sub(functools.partial(_iso_date, day_first=f), common)) for f in firsts]
    dated += [_timed(_DOT_TIME.sub(r"\1:\2", reading)) for reading in dated if _DOT_TIME.search(reading)]  # 16.45
    dated += [_TIME_ON_DATE.sub(r"\2 \1", _DATE_AT_TIME.sub(r"\1 \2", reading)) for reading in dated]  # one value
    joined = _DECIMAL_COMMA.sub(r"\1.\2", _DIGIT_GROUPS.sub(_joined_digits, refanged))  # 1-234-567,50 too
    return [reading for reading in dict.fromkeys([*dated, joined]) if reading != text]


def _timed(text: str) -> str:
    """``text`` with its times as a 24-hour clock writes them (``_clock_time``), hours of two digits."""
    return _CLOCK.sub(r"0\1\2", _TIME.sub(_clock_time, text))


def _value_readings(value: str) -> list[str]:
    """A call's value as ``_written_apart`` reads what the model was shown: as written; in digit groups joined (a
    card's ``4000-1234-...``, a phone's ``+1 (555) 013-4477``; not a date or an address, ``10.0.0.7``); its time
    as a clock writes it (``2024-05-01T9:30:00`` as ``2024-05-01 09:30``), an ISO date's digits alone, and without
    a sign or scheme the model may put before it (``#ops``, ``@ada``, ``https://``)."""
    whole = _DIGIT_GROUPS.fullmatch(value) and not _NUMERIC_DATE.fullmatch(value) and not re.search(r"[./]", value)
    joined = _DIGIT_GROUPS.sub(_joined_digits, value) if whole else value
    timed = re.sub(r"(?<=\d\d:\d\d):00\Z", "", _timed(value)) if ":" in value else value  # no seconds a page lacks
    compact = value.replace("-", "") if _ISO_DATE.fullmatch(value) else value  # a date's digits alone: 20250310
    bare = _SIGIL.sub("", value)  # a channel's #, a handle's @, ./ or a URL's scheme a page may not write
    named = _DISPLAY_NAMED.fullmatch(value)  # "desk" <x@y.test> as its address
    readings = [value, joined, timed, compact, bare if len(bare) > 2 else value, value.rstrip("/") or value]
    readings += [named["address"]] if named else []
    quoted = len(value) > 2 and value[0] in "\"'" and value[-1] == value[0]  # echoed in its quote marks
    readings += [value[1:-1]] if quoted else []
    return list(dict.fromkeys([*readings, *_written_as_machines_do(value), *_amount_readings(value)]))


def _written_as_machines_do(value: str) -> list[str]:
    """Other forms of a timestamp, an IP address or a Windows path that a page may write: ``z`` as ``+00:00`` and
    back, without ``:00`` seconds; an address without ``/32``, IPv6 compressed or in full; ``c:/x`` as ``c:\\x``."""
    forms = []
    if _ISO_TIME.match(value):
        zoned = value[:-1] + "+00:00" if value.endswith("z") else value.replace("+00:00", "z")
        forms += [form for text in (value, zoned) for form in (text, _NO_SECONDS.sub(r"\1", text))]
    with contextlib.suppress(ValueError):
        address = ipaddress.ip_interface(value)
        single = address.network.prefixlen == address.max_prefixlen
        forms += [address.ip.compressed, address.ip.exploded] if single else []
    return forms + ([value.replace("/", "\\")] if re.match(r"[a-z]:/", value) else [])


_SIGIL = re.compile(r"\A(?:[#@]|\./|https?://(?:www\.)?|www\.|mailto:)")
_ISO_TIME = re.compile(r"\d{4}-\d\d-\d\d[ t]\d\d:\d\d")  # canonical: in lower case
_NO_SECONDS = re.compile(r"(\d\d:\d\d):00(?=z\Z|[+-]\d\d:\d\d\Z|\Z)")
_ISO_DATE = re.compile(r"\d{4}-\d\d-\d\d")


def _iso_date(date: re.Match[str], day_first: bool) -> str:
    """A date written in numbers as ISO writes it (``2024-05-01``); as written when it is none."""
    first, second, third = date.groups()
    year, month, day = (first, second, third) if len(first) == 4 else (third, second, first)
    if len(first) != 4 and not day_first:
        month, day = first, second
    if len(year) != 4 or not (1 <= int(month) <= 12 and 1 <= int(day) <= 31):
        return date[0]
    return f"{year}-{int(month):02}-{int(day):02}"


def _clock_time(time: re.Match[str]) -> str:
    """A time as a 24-hour clock writes it: 10h30 as 10:30, 2:30 pm as 14:30, 10am as 10:00; the T of
    2024-05-01T10:30 a space; a bare 10h as written."""
    hours, after, minutes, half = time.groups()
    if hours is None:
        return " "
    if half is None:
        return f"{hours}:{after}" if after else time[0]
    return f"{int(hours) % 12 + (12 if half.lower() == 'p' else 0):02}:{minutes or '00'}"


def _compressed(address: re.Match[str]) -> str:
    """An IPv6 address as RFC 5952 writes it (``2001:db8::8:800:200c:417a``); as written when it is none."""
    with contextlib.suppress(ValueError):
        return ipaddress.IPv6Address(address[0]).compressed
    return address[0]


def _refanged(mark: re.Match[str]) -> str:
    """A defanged address's mark as it was: [.] and (dot) a dot, [at] an @, [://] and [:] as they are, hxxp http."""
    sign = (mark[1] or "http").lower()
    return {"dot": ".", "at": "@"}.get(sign, sign)


def _spelt_address(address: re.Match[str]) -> str:
    """An address spelt out against scrapers: ``bob at example dot test`` (or ``bob @ example . test``) as
    ``bob@example.test``."""
    return re.sub(" dot | \\. ", ".", re.sub(" at | @ ", "@", address[0], count=1, flags=re.I), flags=re.I)


def _joined_digits(run: re.Match[str]) -> str:
    """A run of digit groups (``_DIGIT_GROUPS``) without its breaks and brackets, if it holds 7 digits or more."""
    return re.sub(r"[ ./_\u00b7()-]", "", run[0]) if sum(c.isdigit() for c in run[0]) >= 7 else run[0]


_NUMBER_OTHERWISE = re.compile(f"{_DOTTED_THOUSANDS.pattern}|{_DIGITS_DRAWN.pattern}|{_WRITTEN_APART.pattern}", re.I)


# a currency code before an amount in groups or with cents, as statements print it: USD1,250.00, CHF1'250, US$5.00;
# an abbreviation's dot before any amount: Rs.1250/-, Fr.1,250, Dhs.12.50
_GLUED_CURRENCY = re.compile(
    r"(?<!\w)(?:([a-z]{3}|[a-z]{1,2}\$)(?=\d{1,3}(?:[,' .]\d{3})+(?!\d)|\d+[.,]\d\d(?!\d))|([a-z]{1,3}\.)(?=\d))", re.I
)
# TeX's group marks: 1{,}250, 1\ 250 (not ~: 1~250 is a range)
_TEX_GROUP = re.compile(r"(?<=\d)(?:\{,\}|\\[ ,])(?=\d{3}(?!\d))")


def _plain_numbers(text: str) -> str:
    """Numbers as ``canonical`` writes them: ``1,000`` (or ``1'000``, ``1 000``, ``1_000``, ``1٬000``, TeX's
    ``1{,}000``, ``USD1,000``...) as ``1000``, ``1,50,000`` (as India groups digits) as ``150000``, ``1.250,50``,
    ``1.500,-`` and ``1.500.000`` (as much of Europe writes them) as ``1250.5``, ``1500`` and ``1500000``,
    ``500.50`` as ``500.5``, ``500.00`` as ``500``, ``5e2`` as ``500``."""
    text = _TEX_GROUP.sub(",", _GLUED_CURRENCY.sub(r"\1\2 ", text))
    text = _EUROPEAN_NUMBER.sub(lambda m: m[1].replace(".", "") + "." + m[2], text)
    text = _INDIAN_NUMBER.sub(lambda m: m[0].replace(",", ""), text)
    text = _GROUPED_BY_DOTS.sub(_ungrouped, text)
    text = _GROUPED_DIGITS.sub(lambda m: re.sub(_GROUP_SIGN, "", m[0]), text)
    exponent = r"(?<![\w.])(?:\d{1,30}(?:\.\d{1,30})?|\.\d{1,30})e[+-]?\d{1,3}(?![\w.])"  # 5e2, 5.0e2, .5e3
    text = re.sub(exponent, lambda m: canonical(float(m[0])), text)
    return re.sub(r"(?<![\d.])\d+\.\d+(?!\.?\d)", lambda m: m[0].rstrip("0").rstrip("."), text)  # "1.50." too


def spared_values(arguments: Any) -> list[str]:
    """A call's values, each with its parameter's name (``name\0value``, ``canonical``): in what the tool said of
    that call, a value is no evidence under the same parameter only (one planted in a note is one still).  None if
    the arguments cannot be read (as JSON text: read first)."""
    with contextlib.suppress(ValueError, RecursionError, AttributeError):
        read = json.loads(arguments) if isinstance(arguments, str) else arguments
        return [f"{key}\0{item}" for key, value in read.items() for leaf in _leaves(value) for item in _items(leaf)]
    return []


def _leaves(value: Any, depth: int = 0) -> Iterator[str]:
    """The scalar values in ``value`` (a dict's values, a list's items, at any depth, and JSON text's values), each
    ``canonical``."""
    if depth > 50:
        raise ValueError("nested too deeply")
    if isinstance(value, dict):
        value = list(value.values())
    if isinstance(value, (list, tuple)):
        for item in value:
            yield from _leaves(item, depth + 1)
    else:  # JSON text (read as its value, ``canonical``): its values
        read = canonical(value)
        yield from _leaves(json.loads(_bare(value)), depth + 1) if isinstance(read, tuple) else [read]


# An XML namespace's prefix on a tag (<m:share_file>, </soap:Body>; not <https://...>), and a unified diff's hunk
_XML_PREFIX = re.compile(r"<(/?)[A-Za-z][\w.-]{0,30}:(?=[A-Za-z_])")
_XMLNS = re.compile(r"""(?<!\s)\s+xmlns(?::[\w.-]{1,30})?=(?:"[^"<>]{0,300}"|'[^'<>]{0,300}')""")  # away with them
_HUNK = re.compile(r"@@ -\d+(?:,\d+)? \+\d+(?:,\d+)? @@")


def _applied(patch: str) -> str:
    """A unified diff's lines as the patched text has them: its removed lines gone, its added and kept ones
    without their mark (a model applying the patch calls with the added line's value)."""
    lines = [line for line in patch.split("\n") if not (line.startswith("-") and not line.startswith("---"))]
    return "\n".join(line[1:] if line[:1] in ("+", " ") and not line.startswith("+++") else line for line in lines)


def _forms(source: str, name: re.Pattern[str], tables: bool = False, numbers: bool = False) -> list[str]:
    """The normalised readings of ``source`` that mention the tool (``name``: its spellings): URL, HTML and JSON
    escapes (JSON inside JSON too) undone or not, each with and without HTML tags (or with a call's own only, as
    ``<function=x>``), table bars and margins, and Python literals as JSON; with ``tables`` (a description), a one-row
    table as its record too (``_records``); with ``numbers`` (calls written out), numbers read otherwise too."""
    forms: list[str] = []
    texts = [source.replace("\r\n", "\n").replace("\r", "\n")]
    texts += _url_unescaped(texts[0]) if "%" in source and _URL_ESCAPE.search(texts[0]) else []
    texts += [text.replace('""', '"') for text in texts if '""' in text]  # a CSV field's quotes, doubled
    texts += [_CALENDAR.sub(_unfolded, texts[0])] if "BEGIN:V" in source else []  # an iCalendar event, a vCard
    texts += _mail_decoded(texts[0]) if "=" in source else []  # =3D, =?utf-8?b?...?=
    texts += _base64_decoded(texts[0]) if _BASE64.search(texts[0]) else []
    texts += [_XMLNS.sub("", _XML_PREFIX.sub(r"<\1", texts[0]))] if _XML_PREFIX.search(texts[0]) else []  # SOAP
    texts += [_applied(texts[0])] if _HUNK.search(texts[0]) else []  # a patch, as its new text
    for text in texts:
        text = _html_unescaped(text) if "&" in text else text
        for _ in range(3):
            rendered = _HTML_TAG.sub(_tag_gap, _HIDDEN_HTML.sub("", _without_comments(text))) if "<" in text else text
            own_tags = _HTML_TAG.sub(_html_own, _CDATA_MARKS.sub("", text)) if "<" in text else text
            readings = list(dict.fromkeys((text, rendered, own_tags)))  # as written, as shown, with a call's tags
            within = [m[1] for m in itertools.islice(_JSON_STRING.finditer(text), MAX_STRINGS) if name.search(m[1])]
            readings += _strings_within(within) if within else []  # a ticket's body, a log line's message
            lines = _STRING_LIST.search(text)  # a file's lines as a list, the tool named in it or after it
            readings += _lines_joined(text, name) if lines and name.search(text, lines.start()) else []
            readings += [_records(text)] if tables and _TABLE.search(text) else []  # a one-row table's record
            readings += [_MARKDOWN_ESCAPE.sub(r"\1", reading) for reading in readings if "\\" in reading]
            readings += [reading.replace("|", "\n") for reading in readings if _TABLE_ROW.search(reading)]
            readings += [_MARKUP.sub(r"\1", reading) for reading in readings if _MARKUP.search(reading)]
            first = readings[:2]  # as written and as shown: without a trailing comment, with lower-case tags...
            readings += [_TRAILING_COMMENT.sub("", reading) for reading in first if _TRAILING_COMMENT.search(reading)]
            readings += [_UPPER_TAG.sub(_lower, reading) for reading in first if _UPPER_TAG.search(reading)]
            hyphenated = [reading for reading in first if _HYPHEN_BREAK.search(reading)]  # joined, hyphen or not
            readings += [_HYPHEN_BREAK.sub(joint, reading) for reading in hyphenated for joint in ("", "-")]
            readings += _document_quotes(text) if _DOCUMENT_QUOTE.search(text) else []  # RTF's, TeX's, SQL's
            for reading in readings:
                form = _INPUT_LABEL.sub("\n", _LABEL_SIGN.sub(r"\1: ", plain(reading)))
                known = len(_MARGIN.findall(form, 0, 20_000)) > 1
                bare = _without_margins(form, known) if known or _SHARED_START.search(form, 0, 20_000) else form
                fields = _SUB_TABLE.sub("", _FIELD_KEY.sub(_field_key, bare)) if _FIELD_OR_TABLE.search(bare) else bare
                forms += [
                    each for each in dict.fromkeys((form, bare, fields)) if name.search(each) and each not in forms
                ]
            if "\\" not in text:
                break
            text = _ESCAPE.sub(_unescaped, text)
    # a call written as Python prints a dict (single quotes, True, None), read as JSON too, its markup gone as JSON's
    python = [_PYTHON_LITERAL.sub(lambda m: _AS_JSON[m.group()], f.replace("'", '"')) for f in forms if "'" in f]
    forms += python + [_MARKUP.sub(r"\1", form) for form in python if _MARKUP.search(form)]
    otherwise = [form for form in forms if numbers and _NUMBER_OTHERWISE.search(form)]  # calls written out only
    return forms + [reading for form in otherwise for reading in _numbers_otherwise(form)]


# a run of base64: 16 characters or more holding a digit, or padded ("YWNtZS03Nw==", "dHJhbnNmZXI=")
# base64url's - and _ too, and without its padding (a JWT's parts, many APIs' tokens); after a query's or a variable's
# = too, not inside a run (a path's parts are read apart: _path_parts)
_BASE64 = re.compile(
    r"(?<![\w+/-])(?:(?=[A-Za-z+/_-]*\d)[A-Za-z0-9+/_-]{16,}={0,2}"
    r"|(?:[A-Za-z0-9+/]{4})+(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=))(?![\w+/=-])"
)
_WRAPPED_BASE64 = re.compile(r"(?m)^[A-Za-z0-9+/]{20,}\n(?:[A-Za-z0-9+/]+\n)*[A-Za-z0-9+/]+={0,2}$")  # mail's lines
_CONTROL = re.compile(r"[\x00-\x08\x0e-\x1f\x7f]")
_CALENDAR = re.compile(r"BEGIN:(V\w+)[\s\S]*?(?:^END:\1$|\Z)", re.MULTILINE)  # an iCalendar event's or a vCard's lines
_FOLDED = re.compile(r"\n[ \t\u00a0](?![ \t]*\n)")  # a long line goes on after a break and a space (not a blank one)


# A record's key written as a document writes a field: RST's and AsciiDoc's :key:, org's #+KEY:, JSDoc's @key (not
# what documents a function: @function, :Name:), a dotted key's last part under a call's or its arguments' key
# (call.action:, arguments.to =; not spring.application.name); and a TOML table of a call's arguments ([job.arguments])
_ARGUMENTS_KEY = r"(?:arguments|args|parameters|params|input|with|kwargs)"
_DECLARED = r"(?!(?:name|function|method|param|arg|returns?|type)\b)"
_FIELD_KEY = re.compile(
    rf"^([ \t]*)(?:\*[ \t]*)?(?::{_DECLARED}(\w{{1,40}}):|#\+(\w{{1,40}}):|@{_DECLARED}(\w{{1,40}})\b"
    rf"|(?:call|tool|step|job|task|action|request|{_ARGUMENTS_KEY})\.(\w{{1,40}})(?=[ \t]*[:=]))[ \t]*",
    re.MULTILINE | re.IGNORECASE,
)
_SUB_TABLE = re.compile(rf"^[ \t]*\[\[?\w{{1,40}}(?:\.\w{{1,40}})*\.{_ARGUMENTS_KEY}\]\]?[ \t]*$", re.MULTILINE)
_FIELD_OR_TABLE = re.compile(f"{_FIELD_KEY.pattern}|{_SUB_TABLE.pattern}", re.MULTILINE)


def _field_key(field: re.Match[str]) -> str:
    """A field's key as a record's line writes it (``to: ``); a dotted key's last part before its own sign."""
    indent, *keys, dotted = field.groups()
    return f"{indent}{dotted}" if dotted else f"{indent}{next(key for key in keys if key)}: "


def _unfolded(calendar: re.Match[str]) -> str:
    """A calendar's lines unfolded, also when a list's, a quote's or a block's marks stand before each of them."""
    lines = calendar[0].split("\n")
    shared = os.path.commonprefix(lines[1:]) if len(lines) > 2 else ""  # the first line starts at BEGIN:
    margin = shared[: len(shared) - len(shared.lstrip(" \t>*+-"))]  # a list's, a quote's or a block's marks
    return _FOLDED.sub("", "\n".join([lines[0], *(line[len(margin) :] for line in lines[1:])]))


# What may stand before each line of a call that another tool printed: a line's number (cat -n, an editor's), a
# log's time stamp and level, a container's name and bar (docker compose logs), a comment's marks
_MARGIN = re.compile(
    r"(?m)^[ \t]*(?:\d{1,6}(?:[ \t]+|[:|.)][ \t]?)|\[?\d{4}-\d\d-\d\d[T ][\d:.,]+(?:Z|[+-]\d\d:?\d\d)?\]?[ \t]+"
    r"(?:\[?[A-Z]{3,8}\]?:?[ \t]+)?|\d\d:\d\d:\d\d[.,\d]*[ \t]+|[\w.-]{1,40}[ \t]+\|[ \t]?|(?://+|--|;+|REM\b|')[ \t]?)"
)
# Three lines in a row that begin alike: a margin a tool printed, perhaps
_SHARED_START = re.compile(r"^(\S[^\n]{1,39}?)[^\n]*\n(?:[ \t]*\n)*\1[^\n]*\n(?:[ \t]*\n)*\1", re.MULTILINE)
# a margin's end, its last: "user: ", "app-1 | ", "bob> ", "[0] ", "E   "
_MARGIN_END = re.compile(r".*(?::|\||>|\]) |.*\S {2,}(?=\S|\Z)")


def _without_margins(text: str, known: bool) -> str:
    """``text`` without the margins before its lines: those ``_MARGIN`` knows, and the start that each run of three
    lines or more shares up to a separator, digits read alike (``[10:01] bob: ``, ``May  1 12:00:01 host app[9]: ``,
    ``remote: ``, ``E   ``)."""
    text = _MARGIN.sub("", text) if known else text  # (``known``: two lines or more have one: cat -n, a log's)
    lines = [line for line in text.split("\n") if line.strip()]  # (a blank line between: no line of a call)
    shapes = [line.translate(_AS_ZERO) for line in lines]
    kept, start, cut = [], 0, False
    while start < len(lines):
        end, shared = start + 1, shapes[start]
        while end < len(lines) and len(common := os.path.commonprefix([shared, shapes[end]])) > 1:
            shared, end = common, end + 1
        alike = len(set(shapes[start:end])) == 1  # a line again and again (a status poll): no call's lines
        found = _MARGIN_END.match(shared[:60]) if end - start > 2 and not alike else None
        kept += [line[found.end() :] if found else line for line in lines[start:end]]
        start, cut = end, cut or found is not None
    return "\n".join(kept) if cut else text  # (the same text, read once)


_AS_ZERO = str.maketrans("123456789", "000000000")
# A JSON string long enough to hold a call: a document inside another (a ticket's body, a log line's message)
_JSON_STRING = re.compile(r'"((?:[^"\\\n]|\\.){20,})"')
MAX_STRINGS = 200


# A list of two strings or more, JSON's or Python's: a tool's lines (readlines()), a notebook cell's source; its first
# line holds a space or a sign, as a call's first line does ("action: x", "x(", "<tool_call>"), not a list of names
_QUOTED = r"""(?:"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*')"""
_STRING_LIST = re.compile(rf"""\[\s*(?="[^"\n]*[^\w."-]|'[^'\n]*[^\w.'-]){_QUOTED}(?:\s*,\s*{_QUOTED})+\s*\]""")


def _lines_joined(text: str, name: re.Pattern[str]) -> list[str]:
    """The lists of strings in ``text`` that mention the tool, each as the text its lines make: one after another
    where each ends in a line break (a notebook's source), else one per line (a file's lines)."""
    joined = []
    for found in itertools.islice(_STRING_LIST.finditer(text), MAX_STRINGS):
        if not name.search(found[0]):
            continue
        with contextlib.suppress(ValueError, SyntaxError, MemoryError, RecursionError):
            lines = json.loads(found[0]) if found[0].lstrip("[ \t\n")[:1] == '"' else ast.literal_eval(found[0])
            joined.append(("" if all(line.endswith("\n") for line in lines[:-1]) else "\n").join(map(str, lines)))
    return joined


def _strings_within(strings: list[str]) -> list[str]:
    """JSON strings (as written, between their quote marks) as their texts, together: a call's line starts inside."""
    found = []
    for string in strings:
        with contextlib.suppress(ValueError):
            found.append(json.loads(f'"{string}"'))
    return ["\n\n".join(found)] if found else []


def _url_unescaped(text: str) -> list[str]:
    """``text`` with URL escapes undone, once, twice... (``%2522`` is ``%22`` is ``"``), and ``+`` as a space too."""
    texts = [urllib.parse.unquote_plus(text)] if "+" in text else []
    unescaped = text
    for _ in range(3):
        unescaped = urllib.parse.unquote(unescaped)
        texts.append(unescaped)
        if not _URL_ESCAPE.search(unescaped):
            break
    return texts


MAX_BASE64_RUNS = 20


def _base64_decoded(text: str) -> list[str]:
    """The texts that base64 runs in ``text`` spell (a model may decode them), where they spell text, and ``text``
    with them in place; a run holds a digit or is padded (``additionalProperties`` is a word).  Runs are looked for
    in ``text`` with a body's wrapped lines joined and as written, and a run's parts a ``/`` splits are read too."""
    joined = _WRAPPED_BASE64.sub(lambda lines: lines[0].replace("\n", ""), text)  # a mail's body, its lines joined
    decoded, inline = [], joined  # (and the lines as they are: each may be a run of its own)
    forms = dict.fromkeys((joined, text))
    found = [run[0] for form in forms for run in itertools.islice(_BASE64.finditer(form), MAX_BASE64_RUNS)]
    runs = dict.fromkeys(part for whole in found for part in [whole, *_path_parts(whole)])
    for run in runs:
        with contextlib.suppress(binascii.Error, UnicodeDecodeError):  # (a path's last part: base64url's, say)
            bare = run.rstrip("=").replace("-", "+").replace("_", "/")
            spelt = base64.b64decode(bare + "=" * (-len(bare) % 4), validate=True).decode()
            if not _CONTROL.search(spelt):  # text, not bytes: read alone, and in place
                decoded.append(spelt)
                inline = inline.replace(run, spelt)
    return [*decoded, inline] if inline != joined else decoded  # a run alone, and in place: a value amid a call


def _path_parts(run: str) -> list[str]:
    """The parts of a run that a ``/`` splits, each long enough to be read alone: a path's base64url segment."""
    return [part for part in run.split("/") if len(part) >= 16] if "/" in run else []


# mail's escapes: quoted-printable (=3D, a soft line break "=" at a line's end) and encoded words (=?utf-8?b?...?=)
_QUOTED_PRINTABLE = re.compile(r"=3D|=\n|=[89A-F][0-9A-F]")  # its signs: "=" or a byte past ASCII escaped, a soft break
_ENCODED_WORD = re.compile(r"=\?[\w-]{1,40}\?([BbQq])\?([^?\s]{0,2000})\?=")


def _mail_decoded(text: str) -> list[str]:
    """``text`` with mail's escapes undone, each kind on its own (``amount=500`` is no escape), as a model may
    read a mail it was shown; none when it has no such escape."""
    words = _ENCODED_WORD.sub(lambda word: _encoded_word(*word.group(1, 2)), text)
    if not _QUOTED_PRINTABLE.search(text):
        return [words] if words != text else []
    unmarked = _LINE_PREFIX.sub("", text)  # quoted or listed ("> ", "- "): a soft line break joins across the marks
    printable = [_quoted_printable(form) for form in dict.fromkeys((text, unmarked))]
    return [decoded for decoded in dict.fromkeys((words, *printable)) if decoded != text]


def _quoted_printable(text: str) -> str:
    """``text`` with quoted-printable escapes undone (``=3D`` is ``=``; a line ending in ``=`` goes on)."""
    return quopri.decodestring(text.encode("utf-8", "surrogatepass")).decode("utf-8", "replace")


def _encoded_word(encoding: str, word: str) -> str:
    """One encoded word's text (base64, or quoted-printable with "_" for a space); as written if it is not one."""
    with contextlib.suppress(binascii.Error, ValueError):
        if encoding in "Bb":
            return base64.b64decode(word, validate=True).decode()
        return _quoted_printable(word.replace("_", " "))
    return word


# a table's row: a markdown one (after list, quote or fence marks too), an HTML one, or two lines of comma-separated
# values (no space after a comma)
_TABLE = re.compile(r"^[^\n|]{0,12}\|[^\n|]*\||<t[dh]\b|^[^,\s][^,\n]*,[^\s,][^\n]*\n[^,\s][^,\n]*,[^\s,]", re.M | re.I)
_CELL_END, _ROW_END = re.compile(r"</t[dh]\s*>", re.IGNORECASE), re.compile(r"</tr\s*>", re.IGNORECASE)


def _records(text: str) -> str:
    """Each table with a header row (markdown, HTML or CSV) and one row under it, as that row's record, each cell
    after its column's header (``to: acme``): a description's example call.  A table of more rows lists values
    a parameter allows (``| theme | looks |`` then ``| light |...``, ``| dark |...``): no example."""
    if "<" in text:
        text = _HTML_TAG.sub("", _ROW_END.sub("\n", _CELL_END.sub("|", text)))
    tables: list[list[list[str]]] = []  # each table's header and rows
    for line in text.splitlines():
        if not _FENCE.sub("", line).strip(" \t>*-"):  # blank, or a fence's marks: a fence around each row is read away
            continue
        cells = [cell.strip(" \t*`") for cell in line.strip(" \t|").split("|" if "|" in line else ",")]
        if len(cells) < 2:  # no table's row: a table, if any, has ended
            tables.append([])
        elif not tables or not tables[-1] or len(cells) != len(tables[-1][0]):
            tables.append([cells])  # a header
        elif not all(set(cell) <= set("-: ") for cell in cells):  # not the rule under the header
            tables[-1].append(cells)
    records = ["\n".join(f"{key}: {cell}" for key, cell in zip(*table)) for table in tables if len(table) == 2]
    return "\n\n".join(records)


def _lower(tag: re.Match[str]) -> str:
    return tag[0].lower()


def _without_comments(text: str) -> str:
    """``text`` without its HTML comments (``<!-- ... -->``, not rendered); read once, left to right."""
    parts, position = [], 0
    while (start := text.find("<!--", position)) >= 0 and (end := text.find("-->", start + 4)) >= 0:
        parts.append(text[position:start])
        position = end + 3
    return "".join(parts) + text[position:]


# An HTML escape as browsers read it: a number's with or without its ";", a name's with it, or without it where no
# "=" or letter follows (HTML's rule in an attribute: a query's "&note=" is no "¬e=")
_ENTITY = re.compile(r"&(?:#\d+;?|#[xX][\da-fA-F]+;?|[A-Za-z][A-Za-z\d]{1,31};|[A-Za-z][A-Za-z\d]{1,31}(?![\w=]))")


def _html_unescaped(text: str) -> str:
    """``text`` with its HTML escapes undone, those escaped twice (``&amp;quot;``) too."""
    for _ in range(3):
        text, before = _ENTITY.sub(lambda entity: html.unescape(entity[0]), text), text
        if text == before or "&" not in text:
            break
    return text


def _html_own(tag: re.Match[str]) -> str:
    """What an HTML tag leaves where a call's own tags stay: a line break for a block's opening tag (one per
    ``</p><p>``), nothing for HTML's other tags and a comment's marks (its text stays), any other tag as it is
    (``<function=x>``, ``<invoke ...>``)."""
    if tag.group(1) is None or tag.group(1).lower() in _HTML_ELEMENTS:
        return "" if tag[0].startswith("</") else _tag_gap(tag)
    return tag[0]


def _tag_gap(tag: re.Match[str]) -> str:
    """What an HTML tag leaves: a line break for a block (``<p>``, ``<br>``, ``<li>``...), else nothing."""
    return "\n" if (tag.group(1) or "").lower() in _BLOCK_TAGS else ""


# Line breaks and a space that a text shows as such, though the readers' patterns would not take them
_BREAKS = str.maketrans(dict.fromkeys("\v\f\x1c\x1d\x1e\x85\u2028\u2029", "\n") | {"\u1680": " "})
_ANSI = re.compile(r"\x1b(?:\[[0-?]{0,32}[ -/]{0,8}[@-~]|\][^\x07\x1b]{0,2000}(?:\x07|\x1b\\)|[@-Z\\-_])")  # CSI, OSC
_UNSEEN = frozenset(("Cf", "Mn", "Me"))  # format characters and combining marks (accents, overlays)
_OTHER_DIGITS = re.compile(r"(?![0-9])\d")  # a decimal digit of another script


_LATIN_LETTER = re.compile(r"LATIN (SMALL|CAPITAL) LETTER ([A-Z]) WITH .+")  # ŧ: LATIN SMALL LETTER T WITH STROKE


@functools.lru_cache(maxsize=4096)
def _latin_letter(char: str) -> str:
    """A Latin letter with a stroke, hook or curl, which no decomposition takes off (ŧ, ɍ, ȶ), as its letter."""
    found = _LATIN_LETTER.fullmatch(unicodedata.name(char, "")) if not char.isascii() else None
    return char if found is None else found[2].lower() if found[1] == "SMALL" else found[2]


def plain(text: str) -> str:
    """``text`` without invisible characters, combining marks, a terminal's colour codes, code fence marks, list
    bullets, blockquote marks and indentation, NFKC-normalised, with look-alike quotes, letters of other scripts
    drawn like Latin ones, digits of other scripts as ASCII ones and tag characters as the ASCII they spell."""
    if not text.isascii():
        text = _FLAG.sub("\U0001f3f4", text) if "\U0001f3f4" in text else text  # a flag's tags spell no text
        text = _FRAMED_DIGITS.sub(_framed_number, text.translate(_LOOK_ALIKES))  # before NFKD splits ″ into two ′
        text = unicodedata.normalize("NFKD", text)  # combining marks apart from their letters, then dropped
        text = "".join(_latin_letter(c) for c in text if c not in INVISIBLE and unicodedata.category(c) not in _UNSEEN)
        text = _OTHER_DIGITS.sub(lambda digit: str(unicodedata.digit(digit.group())), text)  # ١٠ is 10
        text = unicodedata.normalize("NFKC", text).translate(_LOOK_ALIKES)
        text = _HOST_DOT.sub(".", text) if "\u3002" in text else text  # (NFKC makes U+FF61 one)
    text = _ANSI.sub("", text.translate(_BREAKS)) if "\x1b" in text else text.translate(_BREAKS)  # a terminal's colours
    text = _SPECIAL_TOKEN.sub(" ", text) if "<|" in text else text  # a chat template's (＜｜...｜＞ too, by now)
    text = _FENCE.sub("\n", text) if "`" in text or "~" in text else text
    return _LINE_PREFIX.sub("", text)


def calls_written(text: str, name: re.Pattern[str]) -> Iterator[Any]:
    """The arguments (as written: a dict, JSON text or a bare string) of each call of the tool in ``text``, found from
    each mention of its name in any of its spellings (``name``: any case, words joined as ``_NAME_GAP`` says, perhaps
    after a namespace such as ``functions.``), as a model may echo a call with the name corrected."""
    objects: dict[int, tuple[Any, int]] = {}  # "{" position -> (the JSON value there, where it ends)
    read: set[int] = set()  # the "{" whose calls were yielded
    repairs = [0]  # the objects read leniently so far
    for number, mention in enumerate(name.finditer(text)):
        position, end, spelled = mention.start(), mention.end(), mention.group()
        if number >= MAX_NAME_MENTIONS:
            yield PADDED
            return
        namespace = _NAMESPACE.search(text, max(0, position - 60), position)  # functions.name, mcp__x__name
        start = namespace.start() if namespace and namespace.group().endswith((".", "/", ":", "__")) else position
        before, after = text[start - 1 : start], text[end : end + 1]
        if _NAME_CHAR.match(before) or _NAME_CHAR.match(after):  # part of a longer word
            continue
        if text[max(0, start - 4) : start].rstrip(" \t\n`").endswith(('"', "'")):  # a string: the call around it
            yield from _json_calls(text, position, spelled, objects, read, repairs)
        gap = len(next_text := text[end : end + 20]) - len(next_text.lstrip(_GAP_MARKS))
        if joined := _JOINED_BY_WORD.match(text, end):  # use name with {...}
            yield from _object_at(text, joined.end(), None)
        if next_text[gap : gap + 1] == "{":  # name {...}, ["name", {...}], | name | {...} |: the arguments next
            sheet = position > 0 and _NOT_A_CALL_BEFORE.match(text, position - 1) is not None
            bare = next_text[:gap].strip() in ("", ":") and not sheet  # protobuf's name { a: 1 }, name: {a: 1}
            yield from _object_at(text, end + gap, repairs if bare else None)
        if before in ("<", "="):  # <name a="1"/>, <function=name>
            yield from _tagged_call(text, start, end, spelled)
        if (before, after) in (("<", ">"), (">", "<")):  # <name><key>value</key></name>, <name>name</name>
            yield from _element_call(text, position, end, spelled)
        if before in ('"', "'"):  # <invoke name="name"><parameter name="key">value</parameter></invoke>
            yield from _named_element_call(text, start, end)
        if label := _ACTION_BEFORE.search(text, max(0, start - 40), start):  # (before a namespace: files/name)
            yield from _labelled_call(text, label, spelled)
        if _NAME_LABEL.search(text, max(0, start - 40), start) or _KEYED_NAME.match(text, end):
            yield from _record_call(text, start, end, repairs)  # tool: name, action = name, [name], name:
        code = _IDENTIFIER.search(spelled) is not None  # delete_record, deleteRecord: code, where a space may come
        if after == "(" or (code and text[end : end + 40].lstrip(" \t\n")[:1] == "("):  # name(...)
            yield from _expression_call(text, end, repairs)
        if method := _METHOD_CALL.match(text, end):  # name.invoke(...), as a tool object is called
            yield from _expression_call(text, method.end(), repairs)
        if "key>" in text[end : end + 100].lower():  # name <arg_key>a</arg_key><arg_value>1</arg_value>
            yield from [pairs] if (pairs := _keyed_elements(text, end)) else []


# A key's element, then its value's: GLM's <arg_key>a</arg_key><arg_value>1</arg_value>, a plist's <key>a</key><string>
_KEYED_ELEMENT = re.compile(r"\s*<(\w{0,20}key)>\s*([^<>]{1,100}?)\s*</\1>\s*<(\w{1,20})>([^<]*)</\3>", re.I)
_KEYED_GAP = re.compile(r"[^<]{0,40}")  # between the name and its first pair: a tag's end, a line break


def _keyed_elements(text: str, end: int) -> dict[str, str]:
    """The pairs written right after the name at ``end`` as a key's element and its value's, one after the other
    (a pair elsewhere in a file of them is another record's), each value as its text."""
    pairs: dict[str, str] = {}
    position = _KEYED_GAP.match(text, end).end()  # type: ignore[union-attr]  # (it matches the empty text)
    while (pair := _KEYED_ELEMENT.match(text, position)) and len(pairs) < 100:
        pairs[pair[2]] = pair[4].strip()
        position = pair.end()
    return pairs


def _record_call(text: str, position: int, end: int, repairs: list[int]) -> Iterator[Any]:
    """The arguments of a call written as a record that names the tool: an object after a label in the lines after
    the name (``Arguments: {...}``), or the ``key: value`` lines of its paragraph (past a blank line right after the
    name, up to the next ``[section]``), with those of the lines before the name."""
    block = _AFTER_NAME_LINE.sub(r"\1", text[end : end + MAX_CALL_CHARS], count=1)
    head = _OBJECT_HEAD.match(block)
    if head and block[head.end() : head.end() + 1] == "{" and not _FIELD.match(block, head.end()):
        yield from _object_at(text, end + head.end(), repairs)
    preceding = text[max(0, position - MAX_CALL_CHARS) : position].rsplit("\n\n", 1)[-1].splitlines()[-2::-1]
    lines = block.splitlines()[1:]
    in_a_query = _QUERY_BEFORE.search(text, max(0, position - 300), position) is not None  # ?action=tool&to=x: a link
    yield from [pairs] if not in_a_query and (pairs := _pairs_on_its_line(block.split("\n", 1)[0])) else []
    later = _pairs_written("\n".join(_record_lines(lines)))
    earlier = _pairs_written("\n".join(map(str.strip, preceding)))
    yield from [later] if later is not None else []
    plain = _pairs_written("\n".join(_record_lines(lines, plain=True)))
    yield from [plain] if plain is not None and plain != later else []
    yield from [{**earlier, **(later or {})}] if earlier is not None else []  # keys before the name's too


# The rest of a record on its line: up to its closing bracket (the next record's come after it, on a line of JSON)
_QUERY_BEFORE = re.compile(r"\?[^\s?]*[ \t]?\Z")  # a URL's query, up to the name: its pairs are read only near the name
_ONE_RECORD = re.compile(r"""(?:"[^"\n]*"|'[^'\n]*'|[^"'}\])\n])*""")
# up to a ";" that starts another record's pairs ("...; next=other, to=x"), not one inside a value
_BEFORE_SEMICOLON = re.compile(r"""(?:"[^"\n]*"|'[^'\n]*'|;(?![ \t]*\w{1,40}[ \t]*[=:])|[^"';\n])*""")
_LINE_PAIR = re.compile(r"""[ \t]*["']?(\w{1,40})["']?[ \t]*[:=](.*)""", re.S)  # its value stripped after


def _pairs_on_its_line(rest: str) -> dict[str, str]:
    """The pairs after the name on its own line: a flow mapping's (``{action: tool, to: x}``), a query's or a form's
    (``action=tool&to=x``), ``;``-separated ones; each value as written, without its quote marks."""
    rest = _ONE_RECORD.match(rest.strip(" \t\"'"))[0]  # type: ignore[index]  # (it matches the empty text)
    mark = rest[:1]
    rest = _BEFORE_SEMICOLON.match(rest)[0] if mark == "," else rest  # type: ignore[index]  # a log's next record
    parts = re.findall(rf"""(?:"[^"\n]*"|'[^'\n]*'|[^{mark}"'\n])+""", rest) if mark in ("&", ";", ",") else []
    found: dict[str, str] = {}
    for part in parts:  # a part that is no pair goes on the value before it (a plain value's ", ")
        if pair := _LINE_PAIR.fullmatch(part):
            found[pair[1]] = pair[2]
        elif found:
            found[next(reversed(found))] += mark + part
    named = bool(parts) and _LINE_PAIR.fullmatch(parts[0]) is not None  # the line goes on with a pair
    return {key: value.strip(" \t\"'") for key, value in found.items()} if named else {}


def _record_lines(lines: list[str], plain: bool = False) -> Iterator[str]:
    """A record's ``key: value`` lines (a string's closing quote or a brace after the last aside): the other lines
    of its paragraph skipped (a comment's words), and over blank lines while pairs follow (one ``<li>`` a line), up
    to a ``[section]`` or a line of a paragraph after it that is none; ``plain``: YAML's plain values of several
    words too (``note: see you``), which a remark's line may look like (``Note: reviewed``)."""
    paragraph = True
    for line in map(str.strip, lines):
        if _ANOTHER_RECORD.match(line):  # tool: another_tool (a log's list of them, a config's next entry)
            return
        pair = closed[1] if (closed := _PAIRS_CLOSED.fullmatch(line)) else None
        if pair is None and plain and (words := _PLAIN_PAIR.fullmatch(line)):  # no quote marks around them
            pair = f'{words[1]}: "{words[2]}"'
        if line[:1] == "[" or (pair is None and line and not paragraph and not _LABEL_ALONE.fullmatch(line)):
            return
        paragraph = paragraph and bool(line)
        yield from [pair] if pair else []


_ANOTHER_RECORD = re.compile(r"(?:tool|tool_name|function|action|uses|call)[ \t]*[:=]", re.IGNORECASE)
_PLAIN_PAIR = re.compile(r"(\w+)[ \t]*:[ \t]+([^\"'\s][^\"'\n]*)")  # note: a few words; not "a: 1, b: 2" (pairs)
_LABEL_ALONE = re.compile(r"[\w-]{1,30}[ \t]*:")  # with:, args: (its pairs nested under it, past blank lines too)


_NOT_A_CALL_BEFORE = re.compile(r"[\"']|(?<![\w.])\.")  # "name" { in HCL, .name { in a style sheet (not functions.)


def _object_at(text: str, brace: int, repairs: list[int] | None) -> Iterator[Any]:
    """The JSON object at ``brace``; if it is not JSON, read leniently (``{to: "x"}``, protobuf's text format,
    a few per text: ``MAX_REPAIRS``), unless ``repairs`` is None."""
    try:
        yield _READER.raw_decode(text, brace)[0]
        return
    except (ValueError, RecursionError):
        if repairs is None:
            return
    if (pairs := _bare_object(text, brace)) is not None:  # key: "value" lines
        yield pairs[0]
        return
    repairs[0] += 1
    with contextlib.suppress(ValueError, RecursionError):
        value = parse_json_value(text[brace : brace + MAX_CALL_CHARS]) if repairs[0] <= MAX_REPAIRS else None
        value = value[0] if isinstance(value, list) and value else value  # the object, then other text read on
        yield from [value] if isinstance(value, dict) and value else []


def _bare_object(text: str, brace: int) -> tuple[dict[str, str], int] | None:
    """The object at ``brace`` written as ``key: "value"`` pairs (no object inside), and where it ends; read
    without json-repair (which is slow: a few per text), else None."""
    closing = text.find("}", brace, brace + MAX_CALL_CHARS)
    inner = text[brace + 1 : closing] if closing > 0 else "{"
    pairs = _pairs_written(inner, whole=True) if "{" not in inner else None
    return None if pairs is None else (pairs, closing + 1)


def _json_calls(
    text: str, mention: int, name: str, objects: dict[int, tuple[Any, int]], read: set[int], repairs: list[int]
) -> Iterator[Any]:
    """The calls in the nearest JSON value around ``mention`` that holds it (tried from the nearest "{"
    backwards, at most ``MAX_OBJECT_TRIES``; each "{" is decoded once per text)."""
    brace = _brace_before(text, mention)
    for _ in range(MAX_OBJECT_TRIES):
        if brace < 0:
            return
        if brace not in objects:
            objects[brace] = _decoded(text, brace, mention, name, repairs)
        value, end = objects[brace]
        if end > mention or (end == -1 and value is not None):  # holds the mention
            if brace not in read:
                read.add(brace)
                yield from _calls_in(value, name)
                yield from _next_object(text, end, value)  # {"tool": name} with its arguments on the next line
            if end != -1:  # a lenient reading may start at a "{" in a string ("Hi {first_name"): read on out
                return
        brace = _brace_before(text, brace)
    yield PADDED


_FIELD = re.compile(r"\{+[^{}:=,\"']{0,100}\}")  # {first_name}, {{ name }}, ${x}, {0}: a template's field


def _next_object(text: str, end: int, value: Any) -> Iterator[Any]:
    """The JSON object right after ``value`` (a call's name without arguments: ``{"tool": "x"}``), read as its
    arguments, as JSON Lines split a record."""
    call = written_call(value) if isinstance(value, dict) and len(value) == 1 and end > 0 else None  # the name alone
    if call is not None and call[1] is None and (brace := _NEXT_OBJECT.match(text, end)):
        yield from _object_at(text, brace.end(), None)


_NEXT_OBJECT = re.compile(r"[ \t]*,?(?:[ \t]*\r?\n){1,3}[ \t]*(?=\{)")  # on the next line (past blank ones)


def _brace_before(text: str, position: int) -> int:
    """The last "{" before ``position`` that may start an object: not a template's field in a text."""
    brace = text.rfind("{", 0, position)
    for _ in range(MAX_OBJECT_TRIES * 16):
        if brace < 0 or not _FIELD.match(text, brace):
            break
        brace = text.rfind("{", 0, brace)
    return brace


def _decoded(text: str, brace: int, mention: int, name: str, repairs: list[int]) -> tuple[Any, int]:
    """The JSON value at ``brace`` and where it ends: as JSON, as ``key: "value"`` pairs, else read leniently
    (``_repaired``: slow, a few per text)."""
    try:
        return _READER.raw_decode(text, brace)
    except (ValueError, RecursionError):
        bare = _bare_object(text, brace)
    if bare is not None:
        return bare
    repairs[0] += 1
    return _repaired(text, brace, mention, name) if repairs[0] <= MAX_REPAIRS else (None, brace)


def _repaired(text: str, brace: int, mention: int, name: str) -> tuple[Any, int]:
    """The JSON value at ``brace`` read leniently (``{name: 'x',}``, trailing commas): ``(value, -1)`` when
    it holds the mention of ``name`` (-1: repaired, its end unknown), else ``(None, -1)``."""
    try:
        value = parse_json_value(text[brace : mention + 2000])
    except (ValueError, RecursionError):
        return None, -1
    return (value, -1) if name in json.dumps(value, ensure_ascii=False, default=str) else (None, -1)


def _calls_in(value: Any, name: str, depth: int = 0) -> Iterator[Any]:
    """The arguments of each object in ``value`` (at any depth) written as a call of ``name``."""
    if depth > 50:
        return
    if isinstance(value, dict):
        call = written_call(value)
        if call is not None and same_name(call[0], name):
            yield {} if call[1] is None else call[1]
        if (call is None or call[1] is None) and any(same_name(item, name) for item in value.values()):
            yield from _loosely_written(value, name)  # under other keys: {"action": name, "params": {...}}
        value = list(value.values())
    if isinstance(value, list):
        for item in value:
            yield from _calls_in(item, name, depth + 1)


def same_name(written: Any, name: str) -> bool:
    """``written`` names the tool ``name`` spells (``functions.Delete-Record`` is ``delete_record``)."""
    return isinstance(written, str) and name_key(written) == name_key(name)


def name_key(name: str) -> str:
    """A name as compared: its last namespace part (``mcp__x__name``), only letters and digits, case folded."""
    return re.sub(r"[\W_]", "", re.split(r"[./:]|__", name.strip(" \t\n`'\""))[-1]).casefold()


def _loosely_written(value: dict[str, Any], name: str) -> Iterator[Any]:
    """The arguments an object naming the tool under another key may hold (``{"action": name,
    "action_input": {...}}``, ``{"op": name, "id": "x"}``): the rest of the object, each object in it
    (or JSON text of one), and its one other value."""
    rest = {key: item for key, item in value.items() if not same_name(item, name)}
    yield rest
    for item in rest.values():
        if isinstance(item, dict) or len(rest) == 1 or (isinstance(item, str) and item.lstrip()[:1] == "{"):
            yield item


def _labelled_call(text: str, label: re.Match[str], name: str) -> Iterator[Any]:
    """The call of ``name`` written right after an ``Action:`` label (its input after it, on the same or the
    next lines); the label need not begin the line (a call inside a JSON string, a sentence)."""
    step = parse_react(text[label.start() : label.start() + MAX_CALL_CHARS], [name])
    if not step.action_input:  # an Action Input written before the Action: read in the usual order
        inputs = list(_INPUT_BEFORE.finditer(text, max(0, label.start() - MAX_CALL_CHARS), label.start()))
        inputs = [found for found in inputs[-1:] if _orphan_input(text, found.start(), found.end(), label.start())]
        line_end = text.find("\n", label.end())
        action = text[label.start() : line_end if line_end >= 0 else len(text)]
        step = parse_react(f"{action}\n{text[inputs[-1].start() : label.start()]}", [name]) if inputs else step
    if len(text) - label.start() > MAX_CALL_CHARS and step.open_ended:  # an input cut at the limit
        yield PADDED
    if same_name(step.action, name):
        yield step.action_input
        if isinstance(step.action_input, str) and step.action_input.strip()[:1] == '"':
            with contextlib.suppress(ValueError):  # "{\"key\": 1}": the arguments as a JSON string
                yield json.loads(step.action_input)
        pairs = _pairs_written(step.action_input) if isinstance(step.action_input, str) else None
        if pairs is not None:
            yield pairs


_PAIR_TEXT = r"""(\w+)[ \t]*[=:][ \t]*(?:"([^"]*)"|'([^']*)'|([^\s,;"']+))"""  # key=value, key: "value"
_PAIR = re.compile(_PAIR_TEXT)
_PAIRS = re.compile(rf"{_PAIR_TEXT}(?:(?:\s*[,;]\s*|\s+){_PAIR_TEXT})*")  # on one line or several (YAML)
_PAIRS_CLOSED = re.compile(rf"({_PAIRS.pattern})[\"'}}\]),; \t]*")  # a string's closing quote or a brace after them


def _orphan_input(text: str, start: int, end: int, action: int) -> bool:
    """The Action Input at ``start:end`` is the input of the Action at ``action`` written first: no Action or
    Observation comes between them, and no Action right before it (whose input it would be)."""
    previous = text[text.rfind("\n", 0, max(0, start - 1)) + 1 : start]
    return not _STEP_LINE.search(text, end, action) and not _STEP_LINE.match(previous)


def _pairs_written(text: str, whole: bool = False) -> dict[str, str] | None:
    """``a=1, b: "x"`` (on one line or several, as YAML; a line may end with a separator) as a dict, up to the
    first line that is none (the text after a quoted call; ``whole``: every line must be); else None."""
    lines = [line.strip().rstrip(",;") for line in text.strip().splitlines()]
    pairs = list(itertools.takewhile(_PAIRS.fullmatch, lines))
    if not pairs or (whole and len(pairs) < len(lines)):
        return None
    return {pair[0]: pair[1] or pair[2] or pair[3] for pair in _PAIR.findall("\n".join(pairs))}


def _tagged_call(text: str, mention: int, end: int, name: str) -> Iterator[Any]:
    """``<name a="1"/>`` or ``<function=name>...</function>``."""
    call = _attribute_tag(text, end, name, {name}) if text.endswith("<", 0, mention) else None
    close = text.find("</function>", end, end + MAX_CALL_CHARS) if text.endswith("<function=", 0, mention) else -1
    if close >= 0:  # the whole call, from its opening tag
        call = _function_call(text[mention - len("<function=") : close + len("</function>")], {name})
    if call is not None:
        yield call.arguments


_ELEMENT = re.compile(r"<([A-Za-z_][\w-]{0,99})>(.*?)</\1[ \t]*>", re.DOTALL)
_ARGUMENTS_ELEMENT = re.compile(r"<(arguments|parameters|args|input|tool_input|action_input)>(.*?)</\1>", re.DOTALL)
_RPC_PARAMS = re.compile(r"</methodName>\s*(?:<!--(?:(?!-->).)*-->\s*)*<params>(.*?)</params>", re.DOTALL)
_RPC_TYPED = r"<value>\s*(?:<[a-z.\d]{1,20}>)?([^<>]*)"  # an XML-RPC value, in its type's element or bare
_RPC_MEMBER = re.compile(rf"<member>\s*<name>([^<>]{{1,100}})</name>\s*{_RPC_TYPED}")
_RPC_PARAM = re.compile(rf"<param>\s*{_RPC_TYPED}")


def _element_call(text: str, mention: int, end: int, name: str) -> Iterator[Any]:
    """A call written as XML elements: ``<name><key>value</key>...</name>``, or the name as an element's
    text followed by an ``<arguments>`` element (``<name>name</name><arguments>{...}</arguments>``; XML-RPC's
    ``<methodName>`` and ``<params>``)."""
    if text.startswith(">", end):
        close = text.find(f"</{name}", end, end + MAX_CALL_CHARS)
        if close >= 0:
            yield _element_value(text[end + 1 : close])
    else:
        found = _ARGUMENTS_ELEMENT.search(text[end : end + MAX_CALL_CHARS])
        rpc = _RPC_PARAMS.match(text[end : end + MAX_CALL_CHARS])  # XML-RPC: its params after its methodName
        if rpc is not None:  # its struct's members, or its values in order
            yield dict(_RPC_MEMBER.findall(rpc[1])) or dict(enumerate(_RPC_PARAM.findall(rpc[1])))
        elif found is not None:
            yield _element_value(found.group(2))


_NAMED = r"<([A-Za-z_][\w:-]{0,99})[^<>]{0,200}?\bname[ \t]*=[ \t]*[\"']"  # <tag ... name=" (an element named)
_NAMED_CHILD = re.compile(rf"{_NAMED}([^\"'<>]{{1,100}})[\"'][^<>]{{0,200}}>(.*?)</\1\s*>", re.S)
# an attribute, its value quoted, bare or none (async); (action: as a label's sign reads)
_ATTRIBUTE = r"""[\w:.-]{1,100}(?:[ \t]*(?:=|:[ \t])[ \t]*(?:"[^"<>]*"|'[^'<>]*'|[^\s"'<>=`]+))?"""
_START_TAG = re.compile(rf"<([A-Za-z_][\w:.-]{{0,99}})((?:\s+{_ATTRIBUTE}){{0,40}})\s*(/?)>")  # <tag a="1" b=2>
_ATTRIBUTES = re.compile(r"""([\w:.-]{1,100})[ \t]*(?:=|:[ \t])[ \t]*(?:"([^"<>]*)"|'([^'<>]*)'|([^\s"'<>=`]+))""")


def _named_element_call(text: str, start: int, end: int) -> Iterator[Any]:
    """A call written as an element whose attribute names the tool (not as a URL's path: a form's ``action``): its
    other attributes (``<step action="tool" to="x"/>``), and its children's: by their names (``<invoke name="tool">``
    ``<parameter name="key">value</parameter></invoke>``, ``<parameter name="key" value="x"/>``, ``<arg key="k"
    value="x"/>``) or, for its arguments' element, as attributes (``<args to="x"/>``)."""
    opening = text.rfind("<", max(0, start - 260), start)
    tag = _START_TAG.match(text, opening) if opening >= 0 else None
    if tag is None or tag.end() <= end:
        return
    attributes = _ATTRIBUTES.finditer(text, tag.start(2), tag.end(2))
    found = [(match, match[2] or match[3] or match[4]) for match in attributes]
    label, value = next(((match[1], value) for match, value in found if match.start() < start < match.end()), ("", ""))
    address = value.lstrip().startswith("/") or "://" in value  # <form action="/tool">: a page's address
    if address or not (_LABEL_ATTRIBUTE.fullmatch(label) and same_name(value, text[start:end])):
        return  # an element's id or class named like the tool, or a page's address: no call
    yield {match[1]: value for match, value in found if not same_name(value, text[start:end])}
    close = text.find(f"</{tag[1]}", tag.end(), tag.end() + MAX_CALL_CHARS) if not tag[3] else -1
    if close >= 0:
        yield {child.group(2): child.group(3).strip() for child in _NAMED_CHILD.finditer(text, tag.end(), close)}
        called = label.lower() != "name" or _CALL_TAG.fullmatch(tag[1])  # <target name=x>: a build's, no call
        yield from [_child_attributes(text[tag.end() : close])] if called else []


_CALL_TAG = re.compile(
    r"(?:\w+:)?(?:invoke|call|tool_call|function_call|tool_use|tool|function|step|task|action)", re.I
)
_LABEL_ATTRIBUTE = re.compile(rf"(?:data-)?{_CALL_LABELS}", re.IGNORECASE)  # name=, tool=, data-action=...
_ARGUMENTS_TAG = re.compile(r"(?:tool_|action_)?(?:arguments|args|parameters|params|input|kwargs|with)", re.I)


def _child_attributes(inner: str) -> dict[str, str]:
    """The arguments its children's attributes write: a ``name`` or ``key`` and its ``value``, or all of those of its
    arguments' element (``<args to="x"/>``; a ``<payee id="x"/>`` is a record's, no call's)."""
    found: dict[str, str] = {}
    for child in itertools.islice(_START_TAG.finditer(inner), 100):
        attributes = {key: one or other or bare for key, one, other, bare in _ATTRIBUTES.findall(child[2])}
        key = attributes.get("name") or attributes.get("key")
        if key and "value" in attributes:
            found[key] = attributes["value"]
        elif _ARGUMENTS_TAG.fullmatch(child[1]):
            found.update(attributes)
    return found


def _element_value(inner: str) -> Any:
    """Child elements as a dict of their texts, else the text itself (JSON, or one value)."""
    children = {child.group(1): child.group(2).strip() for child in _ELEMENT.finditer(inner)}
    return children or inner.strip()


_INPUT_OBJECT = re.compile(r"\s*\w{1,40}\s*:\s*\{[^()]*\}\s*")  # GraphQL's one argument, an object: no code, no remark


def _expression_call(text: str, end: int, repairs: list[int]) -> Iterator[Any]:
    """``name(a=1, b="x")``, ``name({"a": 1})`` or ``name("x")``: literals; or ``key: value`` pairs (``name(a: 1)``,
    ``name({a: 'x'})``, as other languages write a call), an object among them read leniently (GraphQL's
    ``name(input: {to: "x"})``, a few per text: ``MAX_REPAIRS``); else its literal arguments alone (another
    holds a placeholder, an expression or a line break in a string: ``note=...``, ``f"..."``)."""
    opening = text.find("(", end)  # the caller found it after the name, past white space only
    parts, closing = _parts(text, opening)
    if parts is None:  # not closed in time: name(... padded past the limit (not "name (a remark)"), or no call
        yield from [PADDED] if closing == PAST_LIMIT and opening == end else []
        return
    inside = text[opening + 1 : closing].strip(" \t\n{}")
    literal = _literals(parts)
    arguments: dict[Any, Any] | None = literal if len(literal) == len(parts) else _pairs_written(inside, whole=True)
    if arguments is None and _INPUT_OBJECT.fullmatch(text, opening + 1, closing):  # name(input: {...})
        arguments = next(_object_at(f"{{{text[opening + 1 : closing]}}}", 0, repairs), None)
    arguments = literal if arguments is None else arguments
    if arguments or not parts:  # name(): a call without arguments
        yield arguments[0] if list(arguments) == [0] else arguments  # one value: the tool's one argument


# In code: a string (to its end if unclosed), a backtick's template, a bracket or a comma
_CODE_TOKEN = re.compile(r""""(?:[^"\\]|\\.)*(?:"|\Z)|'(?:[^'\\]|\\.)*(?:'|\Z)|`[^`]*(?:`|\Z)|[(){}\[\],]""", re.S)
_KEYWORD = re.compile(r"""\s*["']?(\w{1,100})["']?\s*(?:=(?!=)|:)\s*(.*)""", re.S)  # a=..., a: ..., "a": ...
_PLAIN = (str, int, float, bool, list, tuple, dict)  # not ``...`` (a placeholder), bytes, a set or None


def _parts(text: str, opening: int, unwrap: bool = True) -> tuple[list[str] | None, int]:
    """What the bracket at ``opening`` holds, apart at its own commas (not those in strings or brackets; an object's
    when that is all: ``f({a: 1})``), and where it closes: ``PAST_LIMIT`` where a limit cut the reading short."""
    depth, start, parts, read = 0, opening + 1, [], 0
    for read, token in enumerate(_CODE_TOKEN.finditer(text, opening + 1, opening + MAX_CALL_CHARS), 1):
        mark = token.group()
        if read > MAX_TOKENS:
            break
        if mark in ("(", "[", "{"):
            depth += 1
        elif mark in (")", "]", "}") and depth:
            depth -= 1
        elif not depth and mark in (")", "]", "}", ","):  # the call's own
            parts += [text[start : token.start()]] if text[start : token.start()].strip() else []  # f(a=1,) too
            start = token.end()
            if mark != ",":
                whole = len(parts) == 1 and parts[0].strip()[:1] == "{"
                return (_parts(parts[0].strip(), 0, unwrap=False)[0] if whole and unwrap else parts), token.start()
    return None, PAST_LIMIT if read > MAX_TOKENS or len(text) > opening + MAX_CALL_CHARS else -1


def _literals(parts: list[str]) -> dict[Any, Any]:
    """The parts of a call that are literals as Python reads them (a line break in a string read as a space), by
    their name or position (``f("a", b=5)`` is ``{0: "a", "b": 5}``: the gate names them by the tool's parameters)."""
    arguments: dict[Any, Any] = {}
    for position, part in enumerate(parts):
        key: Any = position
        value = _literal(part)
        if value is None and (keyword := _KEYWORD.fullmatch(part)):
            key, value = keyword[1], _literal(keyword[2])
        arguments.update({key: value} if value is not None else {})
    return arguments


def _literal(text: str) -> Any:
    """``text`` as a literal text, number, list or dict, or None."""
    with contextlib.suppress(ValueError, TypeError, SyntaxError, RecursionError, MemoryError):
        value = ast.literal_eval(" ".join(text.strip().splitlines()))
        return value if isinstance(value, _PLAIN) else None
    return None


def canonical(value: Any, depth: int = 0) -> Any:
    """``value`` in the form quotes are compared in: JSON text as its value, strings without HTML tags,
    invisible characters, look-alike quotes, case and spacing differences, numbers as their text."""
    if depth > 50:
        raise ValueError("nested too deeply")
    if isinstance(value, str) and (link := _LINK.fullmatch(value.strip())):  # a chat's or a wiki's link: its target
        value = next(target for target in link.groups() if target)
    if isinstance(value, str) and _bare(value).strip()[:1] in ("{", "["):
        with contextlib.suppress(ValueError, RecursionError):  # JSON text (in tags, escaped) as its value, else as text
            value = json.loads(_bare(value))
    if isinstance(value, dict):
        pairs = [(canonical(str(key), depth + 1), canonical(item, depth + 1)) for key, item in value.items()]
        return tuple(sorted(pairs, key=itemgetter(0)))
    if isinstance(value, (list, tuple)):  # in any order, an item twice as once, one item as that item: as echoed
        items = sorted(dict.fromkeys(canonical(item, depth + 1) for item in value), key=repr)
        return items[0] if len(items) == 1 else tuple(items)
    if isinstance(value, bool) or value is None:
        return json.dumps(value)
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, str) and _JSON_NUMBER.fullmatch(value.strip()):  # "500.00" is read as 500
        return canonical(float(value) if any(c in value for c in ".eE") else int(value), depth + 1)
    return _flat(value.strip(_WRAPPING_MARKS) if isinstance(value, str) else json.dumps(value))


def _flat(text: str) -> str:
    """``text`` bare (``_bare``; as written when it is only tags, a value such as ``<img src=x>``), without emphasis
    marks, its spacing collapsed, case folded."""
    bare = _bare(text)
    bare = bare if bare.strip() or not text.strip() else plain(html.unescape(text))
    return " ".join(bare.translate(_EMPHASIS).split()).casefold()


def _bare(text: str) -> str:
    """``text`` without HTML escapes and tags (an address in angle brackets, ``<bob@x.test>``, is none), plain (see
    ``plain``)."""
    return plain(_ELEMENT_TAG.sub("", html.unescape(text)))


# An HTML element's tag in a value: its name, then a space, / or > (``_HTML_TAG``, for texts, takes any ``<name...>``;
# in a value, ``<a@b.test>`` is an address)
_ELEMENT_TAG = re.compile(r"</?[A-Za-z][\w-]*(?:[\s/][^<>]{0,2000})?>|<!--|-->")
