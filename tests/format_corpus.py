"""Messy model outputs for the XML, YAML, list, enum, boolean, datetime, structured and
OpenAI-functions parsers, each with the value a user expects. Written for this package: the
ways models break these formats (fences, prose, <think> blocks, case, emphasis, unescaped
characters, cut-off text), not taken from any other project's tests."""

from __future__ import annotations

from datetime import datetime
from enum import Enum
from typing import Any

from pydantic import BaseModel

# --------------------------------------------------------------------------- XML

XML_TAGS = ["movie", "title", "year"]
_MOVIE = {"movie": [{"title": "Heat"}, {"year": "1995"}]}
_BODY = "<movie><title>Heat</title><year>1995</year></movie>"

XML_CASES: list[tuple[str, dict[str, Any]]] = [
    (f"Here is the XML you asked for:\n\n{_BODY}\n\nEnjoy!", _MOVIE),
    (f"```xml\n{_BODY}\n```\nLet me know if you need more.", _MOVIE),
    (f"<think>The user wants a movie. Heat is a good pick.</think>\n{_BODY}", _MOVIE),
    (
        "<movie><title>Fast & Furious</title><year>2001</year></movie>",
        {"movie": [{"title": "Fast & Furious"}, {"year": "2001"}]},
    ),
    (
        "<movie><title>Heat</title><year>< 2000</year></movie>",
        {"movie": [{"title": "Heat"}, {"year": "< 2000"}]},
    ),
    ("<movie><title>Heat</title><year>1995</year>", _MOVIE),
    ("<movie><title>Heat<year>1995</year></movie>", _MOVIE),
    ("<movie>\n  <title>Heat</title>\n  <year>1995</year>\n</Movie>", _MOVIE),
    ("<title>Heat</title>\n<year>1995</year>", _MOVIE),
    ("<movie><title>Heat</titel><year>1995</year></movie>", _MOVIE),
    ("<movie><title><![CDATA[Heat]]></title><year>1995</year></movie>", _MOVIE),
    ("<movie><!-- the 1995 film --><title>Heat</title><year>1995</year></movie>", _MOVIE),
    (f'<?xml version="1.0" encoding="UTF-8"?>\n{_BODY}\nThat is all.', _MOVIE),
    ("<movie><title>Heat</title><year>1995</year></movie></movie>", _MOVIE),
    ("<movie><title>Heat</title><year>19", {"movie": [{"title": "Heat"}, {"year": "19"}]}),
    ('<movie id="7" note="a > b"><title>Heat</title><year>1995</year></movie>', _MOVIE),
    (
        "<movie><title>Tom &amp; Jerry &#38; friends</title><year>1940</year></movie>",
        {"movie": [{"title": "Tom & Jerry & friends"}, {"year": "1940"}]},
    ),
    (
        "<movie><title>Am&eacute;lie</title><year>2001</year></movie>",
        {"movie": [{"title": "Am&eacute;lie"}, {"year": "2001"}]},
    ),
    (
        "<movie><title>Heat</title><year/><year>1995</year></movie>",
        {"movie": [{"title": "Heat"}, {"year": None}, {"year": "1995"}]},
    ),
    ("~~~\n<movie><title>Heat</title><year>1995</year></movie>\n~~~", _MOVIE),
    ("```XML\n<movie>\n\t<title>Heat</title>\n\t<year>1995</year>\n</movie>", _MOVIE),
    ("Sure! Note: 3 < 5 and x > y.\n<movie><title>Heat</title><year>1995</year></movie>", _MOVIE),
    (
        "<movie><title>Heat</title><year>1995</year></movie>\n<movie><title>Ronin</title></movie>",
        _MOVIE,
    ),
    (
        "<reasoning>Pick a Mann film & a year.</reasoning><movie><title>Heat</title>"
        "<year>1995</year></movie>",
        _MOVIE,
    ),
    (
        "<movie><title>R&D: the movie</title><year>2020</year></movie>",
        {"movie": [{"title": "R&D: the movie"}, {"year": "2020"}]},
    ),
    ("<movie><title>Heat</title><year>1995</year></movie>\n```", _MOVIE),
    ("<movie>\n<title>Heat</title>\n<year>1995</year>\n", _MOVIE),
    (
        "<movie><title>A<B</title><year>1995</year></movie>",
        {"movie": [{"title": "A<B"}, {"year": "1995"}]},
    ),
    (
        "Answer:\n<movie><title>Heat</title><year>1995</year></movie>\nSources: IMDb & Wikipedia",
        _MOVIE,
    ),
    ("<movie><title>Heat</title><year>1995</year></movie><!-- end", _MOVIE),
    (
        "<movie><title>Heat</title><year>1995</year><rating>8.3 / 10 & rising</rating></movie>",
        {"movie": [{"title": "Heat"}, {"year": "1995"}, {"rating": "8.3 / 10 & rising"}]},
    ),
    ("<movie><title>Heat</title><year>1995</ye", _MOVIE),
]

# --------------------------------------------------------------------------- lists

NUMBERED_CASES: list[tuple[str, list[str]]] = [
    ("1) Paris\n2) Rome\n3) Berlin", ["Paris", "Rome", "Berlin"]),
    ("(1) Paris\n(2) Rome\n(3) Berlin", ["Paris", "Rome", "Berlin"]),
    ("1. Paris 2. Rome 3. Berlin", ["Paris", "Rome", "Berlin"]),
    ("- Paris\n- Rome\n- Berlin", ["Paris", "Rome", "Berlin"]),
    ("Paris\nRome\nBerlin", ["Paris", "Rome", "Berlin"]),
    ("Here are three capitals:\nParis\nRome\nBerlin", ["Paris", "Rome", "Berlin"]),
    ("1. **Paris**\n2. **Rome**\n3. **Berlin**", ["Paris", "Rome", "Berlin"]),
    ("```\n1) Paris\n2) Rome\n3) Berlin\n```", ["Paris", "Rome", "Berlin"]),
    ("<think>1) Madrid? no.</think>\n1) Paris\n2) Rome\n3) Berlin", ["Paris", "Rome", "Berlin"]),
    ("Paris, Rome, Berlin", ["Paris", "Rome", "Berlin"]),
    ("• Paris\n• Rome\n• Berlin", ["Paris", "Rome", "Berlin"]),
    ("#1 Paris\n#2 Rome\n#3 Berlin", ["Paris", "Rome", "Berlin"]),
]

MARKDOWN_CASES: list[tuple[str, list[str]]] = [
    ("• Paris\n• Rome\n• Berlin", ["Paris", "Rome", "Berlin"]),
    ("+ Paris\n+ Rome\n+ Berlin", ["Paris", "Rome", "Berlin"]),
    ("1. Paris\n2. Rome\n3. Berlin", ["Paris", "Rome", "Berlin"]),
    ("Paris\nRome\nBerlin", ["Paris", "Rome", "Berlin"]),
    ("- **Paris**\n- **Rome**\n- **Berlin**", ["Paris", "Rome", "Berlin"]),
    ("Paris, Rome and Berlin.", ["Paris", "Rome", "Berlin"]),
    ("<think>- Madrid\n- Lisbon</think>\n• Paris\n• Rome\n• Berlin", ["Paris", "Rome", "Berlin"]),
    ("```markdown\n• Paris\n• Rome\n• Berlin\n```", ["Paris", "Rome", "Berlin"]),
    ("1) Paris\n2) Rome\n3) Berlin", ["Paris", "Rome", "Berlin"]),
    ("Capitals:\nParis\nRome\nBerlin", ["Paris", "Rome", "Berlin"]),
    ("– Paris\n– Rome\n– Berlin", ["Paris", "Rome", "Berlin"]),
    ("▪ Paris\n▪ Rome\n▪ Berlin", ["Paris", "Rome", "Berlin"]),
]

COMMA_CASES: list[tuple[str, list[str]]] = [
    ("Paris, Rome, and Berlin", ["Paris", "Rome", "Berlin"]),
    ("Paris, Rome and Berlin.", ["Paris", "Rome", "Berlin"]),
    ("Here are three capitals: Paris, Rome, Berlin", ["Paris", "Rome", "Berlin"]),
    ("[Paris, Rome, Berlin]", ["Paris", "Rome", "Berlin"]),
    ("'Paris', 'Rome', 'Berlin'", ["Paris", "Rome", "Berlin"]),
    ("- Paris\n- Rome\n- Berlin", ["Paris", "Rome", "Berlin"]),
    ("1. Paris\n2. Rome\n3. Berlin", ["Paris", "Rome", "Berlin"]),
    ("Paris\nRome\nBerlin", ["Paris", "Rome", "Berlin"]),
    ("```\nParis, Rome, Berlin\n```", ["Paris", "Rome", "Berlin"]),
    ("<think>Maybe Madrid, Lisbon</think>Paris, Rome, Berlin", ["Paris", "Rome", "Berlin"]),
    ("Sure!\nParis, Rome, Berlin", ["Paris", "Rome", "Berlin"]),
    ("**Paris**, **Rome**, **Berlin**", ["Paris", "Rome", "Berlin"]),
]

LIST_CASES: list[tuple[str, str, list[str]]] = [
    *(("numbered", t, e) for t, e in NUMBERED_CASES),
    *(("bulleted", t, e) for t, e in MARKDOWN_CASES),
    *(("comma", t, e) for t, e in COMMA_CASES),
]

# --------------------------------------------------------------------------- enum


class Sentiment(Enum):
    POSITIVE = "positive"
    NEGATIVE = "negative"
    NEUTRAL = "neutral"
    MIXED = "mixed"


ENUM_CASES: list[tuple[str, Sentiment]] = [
    ("Positive", Sentiment.POSITIVE),
    ("POSITIVE", Sentiment.POSITIVE),
    ("positive.", Sentiment.POSITIVE),
    ("**negative**", Sentiment.NEGATIVE),
    ('"neutral"', Sentiment.NEUTRAL),
    ("`mixed`", Sentiment.MIXED),
    ("The sentiment is positive.", Sentiment.POSITIVE),
    ("The answer is **Negative**.", Sentiment.NEGATIVE),
    ("Sentiment: neutral", Sentiment.NEUTRAL),
    ("<think>It praises the food but not the service.</think>\nmixed", Sentiment.MIXED),
    ("```\npositive\n```", Sentiment.POSITIVE),
    ("Postive", Sentiment.POSITIVE),
    ("negatve", Sentiment.NEGATIVE),
    ("nuetral", Sentiment.NEUTRAL),
    ("Mixd", Sentiment.MIXED),
    ("I would classify this review as negative.", Sentiment.NEGATIVE),
    ("Label: **MIXED**", Sentiment.MIXED),
    ("(positive)", Sentiment.POSITIVE),
    ("'negative'", Sentiment.NEGATIVE),
    ("Neutral!", Sentiment.NEUTRAL),
    ("  positive  \n", Sentiment.POSITIVE),
    ("Answer: Mixed.", Sentiment.MIXED),
    ("It's clearly positive!", Sentiment.POSITIVE),
    (
        "<thinking>Hmm, positive or negative? The words are negative.</thinking> negative",
        Sentiment.NEGATIVE,
    ),
    ("Classification — NEUTRAL", Sentiment.NEUTRAL),
    ("*positive*", Sentiment.POSITIVE),
    ("__negative__", Sentiment.NEGATIVE),
    ("Result: `neutral`", Sentiment.NEUTRAL),
    ("the review is mixed", Sentiment.MIXED),
    ("Final answer: positive", Sentiment.POSITIVE),
    ("Positive sentiment.", Sentiment.POSITIVE),
]

# --------------------------------------------------------------------------- boolean

BOOLEAN_CASES: list[tuple[str, bool]] = [
    ("Yes.", True),
    ("No.", False),
    ("**YES**", True),
    ("**No**", False),
    ("The answer is **Yes**.", True),
    ("The answer is no.", False),
    ("True", True),
    ("false", False),
    ("Yes, the document mentions the contract.", True),
    ("No, there is no mention of it.", False),
    ("<think>Is it yes or no? The text says no refund.</think>\nNo", False),
    ("<think>No doubt about it.</think> YES", True),
    ("```\nyes\n```", True),
    ("Answer: NO", False),
    ("yep", True),
    ("Nope.", False),
    ('"yes"', True),
    ("'no'", False),
    ("No, not a yes.", False),
    ("Yes. No further details are given.", True),
    ("Verdict: **no**", False),
    ("YES!", True),
    ("no!", False),
    ("(yes)", True),
    ("`NO`", False),
    ("Decision: yes", True),
    ("yes\n", True),
    ("I think the answer is yes.", True),
    ("Definitely not: no.", False),
    ("Yeah.", True),
    ("Result: FALSE", False),
]

# --------------------------------------------------------------------------- datetime

DATETIME_FORMAT = "%Y-%m-%dT%H:%M:%S.%fZ"
_D = datetime(2023, 7, 4, 14, 30)

DATETIME_CASES: list[tuple[str, datetime]] = [
    ("2023-07-04T14:30:00Z", _D),
    ("2023-07-04T14:30:00", _D),
    ("2023-07-04 14:30:00", _D),
    ("2023-07-04 14:30", _D),
    ("2023-07-04T14:30:00.000Z", _D),
    ("2023-07-04T16:30:00+02:00", _D),
    ("The meeting is on 2023-07-04T14:30:00.000000Z.", _D),
    ("**2023-07-04T14:30:00.000000Z**", _D),
    ("`2023-07-04T14:30:00.000000Z`", _D),
    ('"2023-07-04T14:30:00.000000Z"', _D),
    ("```\n2023-07-04T14:30:00.000000Z\n```", _D),
    ("<think>The user said 2:30 pm on July 4th.</think>\n2023-07-04T14:30:00.000000Z", _D),
    ("July 4, 2023 2:30 PM", _D),
    ("July 4, 2023 at 2:30 PM", _D),
    ("Jul 4, 2023 14:30", _D),
    ("4 July 2023 14:30", _D),
    ("07/04/2023 14:30", _D),
    ("07/04/2023 2:30 PM", _D),
    ("2023/07/04 14:30", _D),
    ("04.07.2023 14:30", _D),
    ("It is scheduled for July 4, 2023 at 2:30 p.m.", _D),
    ("Date: 2023-07-04 14:30:00", _D),
    ("2023-07-04", datetime(2023, 7, 4)),
    ("July 4th, 2023", datetime(2023, 7, 4)),
    ("4th of July 2023", datetime(2023, 7, 4)),
    ("Tuesday, July 4, 2023", datetime(2023, 7, 4)),
    ("25/12/2023", datetime(2023, 12, 25)),
    ("The deadline is 2023-12-31.", datetime(2023, 12, 31)),
    ("2023-07-04T14:30:00.000000Z.", _D),
    ("Answer: 2023-07-04T14:30Z", _D),
    ("2023-07-04 14:30:00 UTC", _D),
]

# --------------------------------------------------------------------------- structured

STRUCTURED_KEYS = ["answer", "source"]
_ANS = {"answer": "Paris", "source": "Wikipedia"}

STRUCTURED_CASES: list[tuple[str, dict[str, Any]]] = [
    ('```json\n{"answer": "Paris", "source": "Wikipedia",}\n```', _ANS),
    ("```json\n{'answer': 'Paris', 'source': 'Wikipedia'}\n```", _ANS),
    ('Here you go:\n{"answer": "Paris", "source": "Wikipedia"}\nHope it helps!', _ANS),
    ('```json\n{\n  // the capital\n  "answer": "Paris",\n  "source": "Wikipedia"\n}\n```', _ANS),
    (
        '<think>{"answer": "Lyon"}</think>\n```json\n'
        '{"answer": "Paris", "source": "Wikipedia"}\n```',
        _ANS,
    ),
    ('{"Answer": "Paris", "Source": "Wikipedia"}', _ANS),
    ('```json\n{"answer": "Paris", "source": "Wikipedia"', _ANS),
    ('{answer: "Paris", source: "Wikipedia"}', _ANS),
    ('```JSON\n{"answer": "Paris", "source": "Wikipedia"}\n```', _ANS),
    ('~~~json\n{"answer": "Paris", "source": "Wikipedia"}\n~~~', _ANS),
    ('<json>{"answer": "Paris", "source": "Wikipedia"}</json>', _ANS),
    ('{"answer": "Paris" "source": "Wikipedia"}', _ANS),
    ('```\n{"answer": "Paris", "source": "Wikipedia"}\n```', _ANS),
    ('{"answer": \'Paris\', "source": "Wikipedia"}', _ANS),
    ('Sure! ```json {"answer": "Paris", "source": "Wikipedia"} ```', _ANS),
    ('{"answer": "Paris", "source": "Wikipedia"} /* from memory */', _ANS),
    ('{"answer": "Paris", "source": "Wikipedia"}}', _ANS),
    ('The object is {"answer": "Paris", "source": "Wikipedia",}.', _ANS),
    ('```json\n{"answer": "Paris", "source": "Wiki', {"answer": "Paris", "source": "Wiki"}),
    ('{"answer": "Paris", "source": None}', {"answer": "Paris", "source": None}),
    ('{"answer": True, "source": "Wikipedia"}', {"answer": True, "source": "Wikipedia"}),
    ('{"answer": "Paris",\n"source": "Wikipedia",\n}', _ANS),
    ('First a draft: {"answer": "Lyon"}\nFinal: {"answer": "Paris", "source": "Wikipedia"}', _ANS),
    ('{"ANSWER": "Paris", "SOURCE": "Wikipedia"}', _ANS),
    ('{"answer": "Paris", "source": "Wikipedia"} # cited', _ANS),
    ('\ufeff{"answer": "Paris", "source": "Wikipedia",}', _ANS),
    ("{“answer”: “Paris”, “source”: “Wikipedia”}", _ANS),
    ('{"answer": "Paris", "source": "Wikipedia", "extra": ...}', _ANS),
    (
        '```json\n[{"answer": "Paris", "source": "Wikipedia"}]\n```\n{"answer": "Paris", '
        '"source": "Wikipedia"}',
        _ANS,
    ),
    ('{"answer":"Paris","source":"Wikipedia"\n', _ANS),
    ('<output>\n{"answer": "Paris", "source": "Wikipedia",}\n</output>', _ANS),
]

# --------------------------------------------------------------------------- functions

FUNCTION_CASES: list[tuple[str, dict[str, Any]]] = [
    ('{"city": "Paris", "unit": "celsius",}', {"city": "Paris", "unit": "celsius"}),
    ("{'city': 'Paris', 'unit': 'celsius'}", {"city": "Paris", "unit": "celsius"}),
    ('```json\n{"city": "Paris"}\n```', {"city": "Paris"}),
    ('{"city": "Paris" // where the user is\n}', {"city": "Paris"}),
    ('{"city": "Paris", "days": 3', {"city": "Paris", "days": 3}),
    ('{city: "Paris"}', {"city": "Paris"}),
    ('{"city": "Paris", "metric": True}', {"city": "Paris", "metric": True}),
    ('{"city": "Paris", "country": None}', {"city": "Paris", "country": None}),
    ('{"city": "Paris" "days": 3}', {"city": "Paris", "days": 3}),
    ('Here are the arguments: {"city": "Paris"}', {"city": "Paris"}),
    ('{"city": "Paris"}}', {"city": "Paris"}),
    ('{"cities": ["Paris", "Rome",]}', {"cities": ["Paris", "Rome"]}),
    ('{"city": "Paris", /* default */ "unit": "celsius"}', {"city": "Paris", "unit": "celsius"}),
    ('{"query": "weather in "Paris""}', {"query": 'weather in "Paris"'}),
    ('{"city": "Par', {"city": "Par"}),
    ('\ufeff{"city": "Paris"}', {"city": "Paris"}),
    ("{“city”: “Paris”}", {"city": "Paris"}),
    ('{"days": 3,}', {"days": 3}),
    ('{"filters": {"min": 1, "max": 5,},}', {"filters": {"min": 1, "max": 5}}),
    ('{"city": "Paris", "days": 3} # done', {"city": "Paris", "days": 3}),
    ("```\n{'city': 'Paris'}\n```", {"city": "Paris"}),
    ('{"tags": ("a", "b")}', {"tags": ["a", "b"]}),
    ('{"city": "Paris", "days": 3,\n  }\n```', {"city": "Paris", "days": 3}),
    ('<think>the user is in Paris</think>{"city": "Paris"}', {"city": "Paris"}),
    ('{"note": "line one\nline two"}', {"note": "line one\nline two"}),
    ("{\"city\": 'Paris'}", {"city": "Paris"}),
    ('{"a": 1, "b": [1, 2', {"a": 1, "b": [1, 2]}),
    ('{"city": "Paris"} {"city": "Rome"}', {"city": "Paris"}),
    ('{"price": 12.5, "currency": "EUR",\n}', {"price": 12.5, "currency": "EUR"}),
    ('{"ok": False, "reason": None}', {"ok": False, "reason": None}),
    ('json\n{"city": "Paris"}', {"city": "Paris"}),
]

# --------------------------------------------------------------------------- YAML


class Recipe(BaseModel):
    name: str
    servings: int
    ingredients: list[str]


_RECIPE = Recipe(name="Pancakes", servings=4, ingredients=["flour", "milk", "eggs"])
_YAML = "name: Pancakes\nservings: 4\ningredients:\n  - flour\n  - milk\n  - eggs\n"

YAML_CASES: list[tuple[str, Recipe]] = [
    (f"```yaml\n{_YAML}```", _RECIPE),
    (f"```yml\n{_YAML}```", _RECIPE),
    (f"```YAML\n{_YAML}```", _RECIPE),
    (f"```\n{_YAML}```", _RECIPE),
    (f"Here is the recipe:\n\n```yaml\n{_YAML}```\nEnjoy!", _RECIPE),
    (f"<think>Pancakes need flour, milk, eggs.</think>\n```yaml\n{_YAML}```", _RECIPE),
    (f"<think>Let me write YAML.</think>\n{_YAML}", _RECIPE),
    ("name: Pancakes\nservings: 4\ningredients:\n\t- flour\n\t- milk\n\t- eggs\n", _RECIPE),
    (
        "```yaml\nname: Pancakes\nservings: 4\ningredients:\n\t- flour\n\t- milk\n\t- eggs\n```",
        _RECIPE,
    ),
    ('{"name": "Pancakes", "servings": 4, "ingredients": ["flour", "milk", "eggs"]}', _RECIPE),
    (
        '```json\n{"name": "Pancakes", "servings": 4, '
        '"ingredients": ["flour", "milk", "eggs"],}\n```',
        _RECIPE,
    ),
    ("{'name': 'Pancakes', 'servings': 4, 'ingredients': ['flour', 'milk', 'eggs']}", _RECIPE),
    ("Sure! Here it is:\nname: Pancakes\nservings: 4\ningredients: [flour, milk, eggs]\n", _RECIPE),
    (f"---\n{_YAML}", _RECIPE),
    (f"---\n{_YAML}...\n", _RECIPE),
    ("name: Pancakes\nservings: 4\ningredients: [flour, milk, eggs]", _RECIPE),
    ('name: "Pancakes"\nservings: "4"\ningredients:\n- flour\n- milk\n- eggs', _RECIPE),
    (f"~~~yaml\n{_YAML}~~~", _RECIPE),
    (f"```yaml\n{_YAML}", _RECIPE),
    (
        "The YAML:\n```\nname: Pancakes\nservings: 4\ningredients:\n    - flour\n    - milk\n"
        "    - eggs\n```",
        _RECIPE,
    ),
    ('{"name": "Pancakes", "servings": 4, "ingredients": ["flour", "milk", "eggs"]', _RECIPE),
    (f"# recipe card\n{_YAML}", _RECIPE),
    (f"{_YAML}# end of recipe\n", _RECIPE),
    ("servings: 4\nname: Pancakes\ningredients:\n  - flour\n  - milk\n  - eggs\n", _RECIPE),
    (
        "<reasoning>YAML please</reasoning>```yaml\nname: Pancakes\nservings: 4\n"
        "ingredients: [flour, milk, eggs]\n```",
        _RECIPE,
    ),
    (
        '{"name": "Pancakes", // the dish\n "servings": 4, '
        '"ingredients": ["flour", "milk", "eggs"]}',
        _RECIPE,
    ),
    (
        "name: Pancakes\r\nservings: 4\r\ningredients:\r\n  - flour\r\n  - milk\r\n  - eggs\r\n",
        _RECIPE,
    ),
    ("Output:\nname: Pancakes\nservings: 4\ningredients:\n  - flour\n  - milk\n  - eggs", _RECIPE),
    (
        "```yaml\nname: Pancakes\nservings: 4\ningredients:\n"
        "\t\t- flour\n\t\t- milk\n\t\t- eggs\n```",
        _RECIPE,
    ),
    ("{name: Pancakes, servings: 4, ingredients: [flour, milk, eggs]}", _RECIPE),
    (
        "```yaml\nname: Pancakes\nservings: 4\ningredients:\n  - flour\n  - milk\n  - eggs\n```\n"
        "```yaml\nname: Waffles\n```",
        _RECIPE,
    ),
]
