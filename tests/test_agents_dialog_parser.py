"""DialogOutputParser: the bracket dialog format's examples and rules, the tolerances of issue
6, warnings, streaming, statistics, LangChain's contract, and that no text makes it fail or go
quadratic."""

from __future__ import annotations

import asyncio
import copy
import itertools
import pickle
import random
from collections.abc import Callable, Iterator
from typing import Any

import pydantic
import pytest
from cpu_clock import best_cpu_seconds
from event_recorders import EventRecorder
from hypothesis import given, settings, strategies as st
from langchain_core.language_models import FakeListChatModel, GenericFakeChatModel
from langchain_core.messages import AIMessage, AIMessageChunk
from langchain_core.outputs import ChatGeneration, Generation
from langchain_core.prompts import ChatPromptTemplate

from langchain_robust_parsers import ParseStats
from langchain_robust_parsers.engine.agents import dialog as engine
from langchain_robust_parsers.parsers.dialog import (
    DIALOG_FORMAT_INSTRUCTIONS,
    DialogOutputParser,
    DialogTurn,
)

PROMPT = ChatPromptTemplate.from_template("You are {name}. Answer Bob: {line}")
INPUT = {"name": "Alice", "line": "I did it on purpose."}


def parse(text: str) -> DialogTurn:
    return DialogOutputParser().parse(text)


def turn(**fields: Any) -> DialogTurn:
    return DialogTurn(**fields)


# ------------------------------------------------------------------- bracket dialog examples


def test_example_1_directed_dialog() -> None:
    assert parse('[TO: Bob, TONE: frustrated] "I can\'t believe this happened!"') == turn(
        action="speak", target="Bob", tone="frustrated", content="I can't believe this happened!"
    )


def test_example_2_interruption() -> None:
    text = '[INTERRUPT after "I think we should", TONE: angry] "Absolutely not!"'
    assert parse(text) == turn(
        action="interrupt",
        tone="angry",
        content="Absolutely not!",
        interrupt_after="I think we should",
    )


def test_example_3_silent_with_action() -> None:
    assert parse("[SILENT, *turns away and stares out window*]") == turn(
        action="silent", tone=None, content="", nonverbal="turns away and stares out window"
    )


def test_example_4_missing_tone_is_salvaged() -> None:
    assert parse('[TO: Bob] "Hello"') == turn(
        action="speak",
        target="Bob",
        tone="neutral",
        content="Hello",
        warning="Missing required TONE field",
    )


def test_example_5_unformatted_text_is_wrapped() -> None:
    assert parse("Just some random text without formatting") == turn(
        action="speak",
        tone="neutral",
        content="Just some random text without formatting",
        warning="Failed to parse format, treated as general dialog",
    )


# ------------------------------------------------------- the format's documented patterns


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            '[TO: Bob, TONE: angry] "Why did you do that?"',
            turn(action="speak", target="Bob", tone="angry", content="Why did you do that?"),
        ),
        (
            '[TONE: nervous] "Maybe we should all calm down."',
            turn(action="speak", tone="nervous", content="Maybe we should all calm down."),
        ),
        (
            '[TO: Alice, TONE: apologetic, *looks down*] "I\'m sorry."',
            turn(
                action="speak",
                target="Alice",
                tone="apologetic",
                content="I'm sorry.",
                nonverbal="looks down",
            ),
        ),
        (
            '[INTERRUPT after "I want to", TONE: furious] "No! Stop right there!"',
            turn(
                action="interrupt",
                tone="furious",
                content="No! Stop right there!",
                interrupt_after="I want to",
            ),
        ),
        ("[SILENT]", turn(action="silent")),
        ("[SILENT, *crosses arms*]", turn(action="silent", nonverbal="crosses arms")),
        (
            "[REACT, TONE: shocked, *drops coffee mug*]",
            turn(action="react", tone="shocked", nonverbal="drops coffee mug"),
        ),
    ],
)
def test_seed_patterns_parse_strictly(text: str, expected: DialogTurn) -> None:
    parser = DialogOutputParser(stats=ParseStats())
    assert parser.parse(text) == expected
    assert parser.stats is not None
    assert parser.stats.snapshot()["dialog"]["success"] == 1


def test_react_may_have_content() -> None:
    assert parse('[REACT, TONE: amused, *snorts*] "Ha."') == turn(
        action="react", tone="amused", content="Ha.", nonverbal="snorts"
    )


def test_interrupt_may_have_a_target() -> None:
    result = parse('[INTERRUPT after "we", TO: Carol, TONE: angry] "No."')
    assert (result.action, result.target, result.warning) == ("interrupt", "Carol", None)


# --------------------------------------------------------------------------- tolerances


@pytest.mark.parametrize(
    "text",
    [
        '[to: Bob, tone: angry] "Why?"',  # lower-case keys
        '[To: Bob, Tone: ANGRY] "Why?"',  # mixed case; the tone is lower-cased
        '[tO: Bob, ToNe: Angry] "Why?"',
        '[  TO :  Bob ,   TONE:angry  ]   "Why?"',  # extra spaces
        '[TONE: angry, TO: Bob] "Why?"',  # any order
        "[TO: Bob, TONE: angry] “Why?”",  # curly double quotes
        "[TO: Bob, TONE: angry] 'Why?'",  # single quotes
        "[TO: Bob, TONE: angry] ‘Why?’",  # curly single quotes
        "[TO: Bob, TONE: angry] Why?",  # no quotes
        '[TO: Bob, TONE: angry]\n\n"Why?"',  # content on the next lines
        'Alice: [TO: Bob, TONE: angry] "Why?"',  # a speaker prefix
        '**Alice:** [TO: Bob, TONE: angry] "Why?"',
        '[TO: Bob TONE: angry] "Why?"',  # a missing comma
        '[TO: Bob; TONE: angry] "Why?"',
        '[TO: Bob,\n TONE: angry] "Why?"',  # a header over two lines
        '```\n[TO: Bob, TONE: angry] "Why?"\n```',  # in a code fence
        '**[TO: Bob, TONE: angry]** "Why?"',  # in bold
        '[TO: Bob, TONE: angry]: "Why?"',
        '[TO: "Bob", TONE: "angry"] "Why?"',
    ],
)
def test_cosmetic_variation_is_still_strict(text: str) -> None:
    parser = DialogOutputParser(stats=ParseStats())
    assert parser.parse(text) == turn(action="speak", target="Bob", tone="angry", content="Why?")
    assert parser.stats is not None
    assert parser.stats.snapshot()["dialog"]["success"] == 1


def test_single_quoted_content_keeps_apostrophes() -> None:
    assert parse("[TONE: sad] 'I can't do this, it's Bob's.'").content == (
        "I can't do this, it's Bob's."
    )
    assert parse("[TONE: sad] ‘I can’t do this.’").content == "I can’t do this."


def test_unquoted_content_keeps_apostrophes_and_quotes() -> None:
    result = parse('[TONE: sad] I can\'t say "yes" to that.')
    assert (result.content, result.warning) == ('I can\'t say "yes" to that.', None)


def test_nonverbal_outside_the_brackets() -> None:
    assert parse('[TONE: tired] *sighs* "Fine."') == turn(
        action="speak", tone="tired", content="Fine.", nonverbal="sighs"
    )
    assert parse("[TONE: tired] *sighs* Fine.") == turn(
        action="speak", tone="tired", content="Fine.", nonverbal="sighs"
    )


def test_several_nonverbal_parts_are_joined() -> None:
    text = '[TO: Bob, TONE: calm, *smiles*, *nods*] *sits down* "Sure." *waves*'
    result = parse(text)
    assert result.nonverbal == "smiles; nods; sits down; waves"
    assert (result.content, result.warning) == ("Sure.", None)


def test_nonverbal_in_unquoted_content_at_sentence_boundaries() -> None:
    result = parse("[TONE: sad] I *really* miss her. *looks away* Anyway.")
    assert result.content == "I *really* miss her. Anyway."  # emphasis stays, gestures go
    assert result.nonverbal == "looks away"


def test_multi_line_content() -> None:
    result = parse('[TONE: nervous] "Maybe we should\nall calm down.\n\nPlease?"')
    assert result.content == "Maybe we should\nall calm down.\n\nPlease?"
    result = parse("[TONE: nervous]\nMaybe we should\nall calm down.")
    assert (result.content, result.warning) == ("Maybe we should\nall calm down.", None)


def test_several_quotes_are_joined() -> None:
    result = parse('[TONE: happy] "Hi!" *waves* "How are you?"')
    assert (result.content, result.nonverbal, result.warning) == (
        "Hi! How are you?",
        "waves",
        None,
    )


def test_nested_quotes_stay_in_the_content() -> None:
    assert parse('[TONE: happy] "He said "no" to me."').content == 'He said "no" to me.'
    assert parse("[TONE: happy] \"He said 'no' to me.\"").content == "He said 'no' to me."


def test_text_after_the_closing_quote_is_ignored_with_a_warning() -> None:
    result = parse('[TO: Bob, TONE: happy] "Hi!" she said with a smile.')
    assert (result.content, result.tone) == ("Hi!", "happy")
    assert result.warning == engine.TEXT_AFTER_CONTENT


def test_punctuation_after_the_closing_quote_is_not_a_problem() -> None:
    assert parse('[TONE: happy] "Hi!".').warning is None


def test_a_second_turn_is_not_content() -> None:
    result = parse('[TONE: happy] "Hi!"\nBob: [TONE: sad] "Hello."')
    assert (result.content, result.tone, result.warning) == (
        "Hi!",
        "happy",
        engine.TEXT_AFTER_CONTENT,
    )
    result = parse("[TONE: happy] Hi!\n[TONE: sad] Hello.")
    assert result.content == "Hi!"


def test_unclosed_bracket() -> None:
    result = parse('[TO: Bob, TONE: angry "Why did you do that?"')
    assert (result.target, result.tone, result.content) == ("Bob", "angry", "Why did you do that?")
    assert result.warning == engine.UNCLOSED_BRACKET
    result = parse("[SILENT, *crosses arms*")
    assert (result.action, result.nonverbal, result.warning) == (
        "silent",
        "crosses arms",
        engine.UNCLOSED_BRACKET,
    )
    result = parse("[TONE: sad\nI don't know.")
    assert (result.tone, result.content, result.warning) == (
        "sad",
        "I don't know.",
        engine.UNCLOSED_BRACKET,
    )


def test_unclosed_gesture_in_the_header() -> None:
    result = parse("[SILENT, *crosses arms]")
    assert (result.action, result.nonverbal) == ("silent", "crosses arms")
    assert result.warning == engine.UNCLOSED_NONVERBAL


def test_unclosed_quote() -> None:
    result = parse('[TONE: sad] "I never meant to')
    assert (result.content, result.warning) == ("I never meant to", engine.UNCLOSED_QUOTE)


@pytest.mark.parametrize(
    "text",
    [
        '[TO: Bob, TONE: reactive] "Hm."',
        '[TO: Bob, TONE: silent] "Hm."',
        '[TO: Bob, TONE: interrupted] "Hm."',
        '[TO: Reacter, TONE: calm] "Hm."',
        '[TO: Bob, TONE: calm, *reacts*] "Hm."',
    ],
)
def test_action_keywords_count_only_as_whole_header_tokens(text: str) -> None:
    result = parse(text)
    assert (result.action, result.warning) == ("speak", None)


def test_tone_values() -> None:
    assert parse('[TONE: Very Angry.] "x"').tone == "very angry"
    assert parse('[TONE: reactive] "x"').tone == "reactive"


def test_interrupt_phrase_variants() -> None:
    cases = {
        '[INTERRUPT AFTER: "I want to", TONE: furious] "No!"': "I want to",
        "[interrupt after 'I don't', TONE: furious] \"No!\"": "I don't",
        '[INTERRUPT after “I want to”, TONE: furious] "No!"': "I want to",
        '[INTERRUPT: "I want to", TONE: furious] "No!"': "I want to",
        '[INTERRUPT "I want to", TONE: furious] "No!"': "I want to",
        '[INTERRUPT after I want to, TONE: furious] "No!"': "I want to",
        '[INTERRUPT after "I want to, like," TONE: furious] "No!"': "I want to, like,",
        '[TONE: furious, INTERRUPT after "I want to"] "No!"': "I want to",
    }
    for text, phrase in cases.items():
        result = parse(text)
        assert (result.action, result.interrupt_after, result.tone, result.content) == (
            "interrupt",
            phrase,
            "furious",
            "No!",
        ), text
        assert result.warning is None, text


# --------------------------------------------------------------------------- warnings


@pytest.mark.parametrize(
    ("text", "warning"),
    [
        ('[TONE: angry, INTERRUPT] "No!"', engine.MISSING_INTERRUPT_PHRASE),
        ("[REACT, *gasps*]", "Missing required TONE field"),
        ('[SILENT] "Hmm."', "Content is invalid on a SILENT turn"),
        ("[SILENT, TO: Bob]", "TO is invalid on a SILENT turn"),
        ("[REACT, TO: Bob, TONE: shocked, *gasps*]", "TO is invalid on a REACT turn"),
        ("[TO: Bob, TONE: angry]", "Missing required content for a SPEAK turn"),
        ('[INTERRUPT after "so", TONE: angry]', "Missing required content for an INTERRUPT turn"),
        ('[TO: Bob, TONE: angry, LOUDNESS: 11] "Why?"', "Ignored unknown header field"),
        ('[TONE: angry, TONE: sad] "Why?"', "Duplicate TONE field; kept the first"),
        ('[MOOD: angry] "Why?"', "Non-standard key MOOD read as TONE"),
        ('[TO: Bob, angry] "Why?"', "TONE given without its key: 'angry'"),
        ('[TONE angry] "Why?"', "Missing ':' after TONE"),
        ('[SILENT, REACT] "Why?"', "Conflicting action keywords (SILENT, REACT); read as SILENT"),
        ('TONE: angry "Why?"', engine.MISSING_BRACKETS),
        ('[TONE: sad] *sighs\n"Fine."', engine.UNCLOSED_NONVERBAL),
    ],
)
def test_problems_become_warnings(text: str, warning: str) -> None:
    parser = DialogOutputParser(stats=ParseStats())
    result = parser.parse(text)
    assert result.warning is not None
    assert warning in result.warning
    assert parser.stats is not None
    assert parser.stats.snapshot()["dialog"]["recovered"] == 1


def test_missing_tone_defaults_to_neutral_except_on_silent() -> None:
    assert parse("[REACT, *gasps*]").tone == "neutral"
    assert parse('[INTERRUPT after "x"] "No!"').tone == "neutral"
    silent = parse("[SILENT]")
    assert (silent.tone, silent.warning) == (None, None)
    assert parse("[SILENT, TONE: sullen]").tone == "sullen"


def test_several_problems_are_joined() -> None:
    result = parse("[REACT, TO: Bob]")
    assert result.warning == "Missing required TONE field; TO is invalid on a REACT turn"


def test_silent_content_and_react_target_are_kept() -> None:
    result = parse('[SILENT] "Hmm."')
    assert (result.action, result.content) == ("silent", "Hmm.")
    assert parse("[REACT, TO: Bob, TONE: shocked]").target == "Bob"


# --------------------------------------------------------------------------- salvage and wrap


def test_header_after_prose_is_found() -> None:
    result = parse('Sure! Here is my reply:\n[TO: Bob, TONE: happy] "Hello!"')
    assert (result.target, result.tone, result.content) == ("Bob", "happy", "Hello!")
    assert result.warning == engine.TEXT_BEFORE_HEADER


def test_header_after_a_reasoning_block_is_found() -> None:
    text = '<think>Bob [the user] is upset.</think>\n[TO: Bob, TONE: calm] "Breathe."'
    result = parse(text)
    assert (result.tone, result.content) == ("calm", "Breathe.")


def test_speech_before_the_header() -> None:
    result = parse('"Why?" [TO: Bob, TONE: angry]')
    assert (result.target, result.tone, result.content) == ("Bob", "angry", "Why?")


def test_salvage_finds_quoted_speech_and_a_tone_word() -> None:
    parser = DialogOutputParser(stats=ParseStats())
    result = parser.parse('Alice glares at Bob angrily. "Why did you do that?"')
    assert (result.action, result.tone, result.content) == (
        "speak",
        "angry",
        "Why did you do that?",
    )
    assert result.warning == engine.NO_HEADER
    assert parser.stats is not None
    assert parser.stats.snapshot()["dialog"]["recovered"] == 1


def test_salvage_prefers_the_narration_over_the_speech_for_the_tone() -> None:
    assert parse('"I am not angry," she said sadly.').tone == "sad"


def test_salvage_with_quotes_but_no_tone_word() -> None:
    result = parse('Alice: "Hello there."')
    assert (result.tone, result.content) == ("neutral", "Hello there.")
    assert result.warning == f"{engine.NO_HEADER}; Missing required TONE field"


def test_salvage_with_a_tone_word_but_no_quotes() -> None:
    result = parse("I'm so happy to see you!")
    assert (result.tone, result.content) == ("happy", "I'm so happy to see you!")
    assert result.warning == engine.NO_HEADER


def test_a_bracket_without_fields_is_not_a_header() -> None:
    result = parse("[citation needed] The moon is made of cheese.")
    assert result.warning == engine.WRAPPED
    assert result.content == "[citation needed] The moon is made of cheese."


def test_lexicon_ambiguous_words_do_not_give_a_tone() -> None:
    assert parse("The coffee went cold while we waited.").warning == engine.WRAPPED


@pytest.mark.parametrize("text", ["", "   ", "\n\n", " \t\r\n ", "\u00a0\u2003", "```\n\n```"])
def test_an_empty_reply_is_silent_with_a_warning(text: str) -> None:
    parser = DialogOutputParser(stats=ParseStats())
    result = parser.parse(text)
    assert result == turn(action="silent", tone=None, content="", warning=engine.EMPTY_RESPONSE)
    assert parser.stats is not None
    assert parser.stats.snapshot()["dialog"]["fallback"] == 1


def test_an_empty_stream_ends_silent() -> None:
    chunks = list(DialogOutputParser().transform(iter(["", "  ", "\n"])))
    assert chunks[-1].action == "silent"
    assert chunks[-1].warning == engine.EMPTY_RESPONSE
    assert all(c.action == "silent" for c in chunks)


def test_a_reply_with_only_a_speaker_prefix_is_not_silent() -> None:
    # Something was written: it is read (and warned about), not taken for silence.
    result = DialogOutputParser().parse("Bob:")
    assert result.action == "speak"
    assert result.warning is not None and "silent" not in result.warning


def test_an_engine_failure_is_wrapped_too(monkeypatch: pytest.MonkeyPatch) -> None:
    # Outside strict mode (the suite turns it on) an engine bug still gives a turn.
    def broken(text: str) -> engine.DialogParse:
        raise RuntimeError("bug")

    monkeypatch.delenv("LANGCHAIN_ROBUST_PARSERS_STRICT", raising=False)
    monkeypatch.setattr("langchain_robust_parsers.parsers.dialog.parse_dialog", broken)
    parser = DialogOutputParser(stats=ParseStats())
    assert parser.parse(" raw ") == turn(
        action="speak", tone="neutral", content="raw", warning=engine.COMPLETE_FAILURE
    )
    assert parser.stats is not None
    assert parser.stats.snapshot()["dialog"]["fallback"] == 1


# --------------------------------------------------------------------------- never fails

_DIALOG_ALPHABET = st.sampled_from(
    [
        *"[]\"'*“”‘’«»:,;| \n\t`~_-.!?",
        *("TO", "TONE", "to:", "tone:", "INTERRUPT", "after", "SILENT", "REACT", "SPEAK"),
        *("Bob", "angry", "sadly", "```", "**", "Alice:", "<think>", "</think>", "é", "\u00a0"),
    ]
)
_DIALOG_TEXT = st.lists(_DIALOG_ALPHABET, max_size=60).map("".join)


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=300))
def test_any_text_gives_a_dialog_turn(text: str) -> None:
    result = DialogOutputParser().parse(text)
    assert isinstance(result, DialogTurn)
    assert result.action in ("speak", "interrupt", "silent", "react")
    assert result.action == "silent" or result.tone is not None


@settings(max_examples=200, deadline=None)
@given(_DIALOG_TEXT)
def test_format_like_noise_gives_a_dialog_turn(text: str) -> None:
    result = DialogOutputParser().parse(text)
    assert isinstance(result, DialogTurn)
    if result.warning is None:  # a strict parse has a header and whatever its action needs
        assert result.action == "silent" or result.tone


@settings(max_examples=150, deadline=None)
@given(_DIALOG_TEXT, st.lists(st.integers(1, 7), min_size=1, max_size=40))
def test_streaming_any_text_ends_with_parse(text: str, sizes: list[int]) -> None:
    parser = DialogOutputParser()
    turns = list(parser.transform(iter(_split(text, sizes))))
    assert turns, "a stream always yields at least the final turn"
    assert turns[-1] == parser.parse(text)
    for before, after in itertools.pairwise(turns[:-1]):
        assert after.content.startswith(before.content)


# --------------------------------------------------------------------------- growth


def _noise(size: int, seed: int) -> str:
    rng = random.Random(seed)
    alphabet = "[]\"*'“”‘’ \n"
    return "".join(rng.choice(alphabet) for _ in range(size))


def _best(fn: Callable[[], object], *, calls: int = 1, repeats: int = 5) -> float:
    """The best time of ``repeats`` measurements of ``calls`` calls, per call."""

    def run() -> None:
        for _ in range(calls):
            fn()

    return best_cpu_seconds(run, repeats) / calls


@pytest.mark.parametrize(
    "make",
    [
        lambda size: _noise(size, 1),
        lambda size: '[TO: Bob, TONE: calm] "' + _noise(size, 2),
        lambda size: "[TONE: calm] " + _noise(size, 3).replace("[", " "),
        lambda size: "[" * size,
        lambda size: '"*' * (size // 2),
        lambda size: "[TONE" * (size // 5),
    ],
    ids=["noise", "quoted-noise", "unquoted-noise", "brackets", "quote-stars", "headers"],
)
@pytest.mark.slow
def test_time_grows_linearly(make: Callable[[int], str]) -> None:
    parser = DialogOutputParser()
    small, large = make(100_000), make(1_000_000)
    # The small input is parsed 10 times per measurement, so that both measurements last about
    # as long and see the same noise from other processes.
    t_small = _best(lambda: parser.parse(small), calls=10)
    t_large = _best(lambda: parser.parse(large))
    # 10x the input may cost at most ~12x the time (and some slack for timer noise).
    assert t_large <= 12 * t_small + 0.05, (t_small, t_large)


@pytest.mark.slow
def test_streaming_cost_per_chunk_does_not_grow_with_the_text() -> None:
    parser = DialogOutputParser()

    def stream(words: int) -> float:
        text = '[TO: Bob, TONE: calm] "' + "word " * words + '"'
        chunks = [text[i : i + 4] for i in range(0, len(text), 4)]
        return best_cpu_seconds(lambda: list(parser.transform(iter(chunks))), 3) / len(chunks)

    stream(200)  # warm up
    per_chunk_small = stream(2_000)
    per_chunk_large = stream(20_000)
    # Re-reading the text so far on each chunk would make this ~10x; copying the content into
    # each new snapshot is the only part that grows, at memcpy speed.
    assert per_chunk_large <= 3 * per_chunk_small + 20e-6, (per_chunk_small, per_chunk_large)


# --------------------------------------------------------------------------- streaming


def _split(text: str, sizes: list[int]) -> list[str]:
    chunks, i, k = [], 0, 0
    while i < len(text):
        size = sizes[k % len(sizes)]
        chunks.append(text[i : i + size])
        i += size
        k += 1
    return chunks


STREAMED = '[TO: Bob, TONE: angry, *slams the table*] "Why did you do that? I trusted you!"'


def _assert_growing(turns: list[DialogTurn], final_text: str) -> None:
    assert len(turns) >= 5
    contents = [t.content for t in turns]
    for before, after in itertools.pairwise(contents):
        assert after.startswith(before) and len(after) > len(before)
    assert all(
        (t.target, t.tone, t.nonverbal) == ("Bob", "angry", "slams the table") for t in turns
    )
    assert turns[-1] == parse(final_text)


def test_transform_str_chunks_yields_growing_snapshots() -> None:
    turns = list(DialogOutputParser().transform(iter(_split(STREAMED, [3]))))
    _assert_growing(turns, STREAMED)
    assert turns[0].content == ""  # yielded as soon as the header is complete


def test_transform_message_chunks_yields_growing_snapshots() -> None:
    chunks = [AIMessageChunk(content=c) for c in _split(STREAMED, [2, 5])]
    turns = list(DialogOutputParser().transform(iter(chunks)))
    _assert_growing(turns, STREAMED)


def test_transform_message_chunks_with_content_blocks() -> None:
    chunks = [AIMessageChunk(content=[{"type": "text", "text": c}]) for c in _split(STREAMED, [4])]
    turns = list(DialogOutputParser().transform(iter(chunks)))
    _assert_growing(turns, STREAMED)


def test_nothing_is_yielded_before_the_header_is_complete() -> None:
    parser = DialogOutputParser()
    text = '[TO: Bob, TONE: angry] "Hi"'
    seen: list[int] = []

    def chunks() -> Iterator[str]:
        for i, c in enumerate(text):
            seen.append(i)
            yield c

    for result in parser.transform(chunks()):
        assert seen[-1] >= text.index("]")
        assert result.tone == "angry"


def test_unformatted_stream_yields_only_the_final_turn() -> None:
    text = "Just some random text without formatting, streamed in pieces."
    turns = list(DialogOutputParser().transform(iter(_split(text, [3]))))
    assert turns == [parse(text)]


def test_a_header_later_in_the_stream_is_found_at_the_end() -> None:
    text = 'Sure, here it is:\n[TONE: happy] "Hi!"'
    turns = list(DialogOutputParser().transform(iter(_split(text, [2]))))
    assert turns == [parse(text)]
    assert turns[0].content == "Hi!"


def test_snapshots_are_new_immutable_objects() -> None:
    turns = list(DialogOutputParser().transform(iter(_split(STREAMED, [3]))))
    assert len({id(t) for t in turns}) == len(turns)
    first = turns[1].model_copy()
    with pytest.raises(pydantic.ValidationError):
        turns[1].content = "changed"  # type: ignore[misc]
    assert turns[1] == first


def test_final_turn_carries_the_final_warnings() -> None:
    text = '[TO: Bob, TONE: happy] "Hi!" she said.'
    turns = list(DialogOutputParser().transform(iter(_split(text, [4]))))
    assert all(t.warning is None for t in turns[:-1])
    assert turns[-1].warning == engine.TEXT_AFTER_CONTENT
    assert turns[-1].content == "Hi!"


def test_stream_of_a_silent_turn() -> None:
    text = "[SILENT, *crosses arms*]"
    turns = list(DialogOutputParser().transform(iter(_split(text, [3]))))
    assert turns[-1] == turn(action="silent", nonverbal="crosses arms")


def test_chain_stream_with_generic_fake_chat_model() -> None:
    model = GenericFakeChatModel(messages=iter([AIMessage(content=STREAMED)]))
    turns = list((PROMPT | model | DialogOutputParser()).stream(INPUT))
    _assert_growing(turns, STREAMED)


async def test_chain_astream_with_generic_fake_chat_model() -> None:
    model = GenericFakeChatModel(messages=iter([AIMessage(content=STREAMED)]))
    turns = [t async for t in (PROMPT | model | DialogOutputParser()).astream(INPUT)]
    _assert_growing(turns, STREAMED)


async def test_atransform_str_chunks() -> None:
    async def chunks() -> Any:
        for c in _split(STREAMED, [3]):
            await asyncio.sleep(0)
            yield c

    turns = [t async for t in DialogOutputParser().atransform(chunks())]
    _assert_growing(turns, STREAMED)


def test_stream_counts_one_final_parse() -> None:
    stats = ParseStats()
    model = GenericFakeChatModel(messages=iter([AIMessage(content=STREAMED)]))
    list((PROMPT | model | DialogOutputParser(stats=stats)).stream(INPUT))
    assert stats.snapshot() == {
        "dialog": {"success": 1, "recovered": 0, "fallback": 0, "failed": 0}
    }


def test_partial_parse_result() -> None:
    parser = DialogOutputParser(stats=ParseStats())
    assert parser.parse_result([Generation(text="[TO: Bob, TON")], partial=True) is None
    partial = parser.parse_result([Generation(text='[TO: Bob, TONE: sad] "I wa')], partial=True)
    assert partial == turn(action="speak", target="Bob", tone="sad", content="I wa")
    assert parser.stats is not None
    assert parser.stats.total() == 0


# --------------------------------------------------------------------------- LangChain contract


def test_is_a_transform_output_parser_with_type_and_schema() -> None:
    from langchain_core.output_parsers import BaseTransformOutputParser

    parser = DialogOutputParser()
    assert isinstance(parser, BaseTransformOutputParser)
    assert parser._type == "dialog"
    assert parser.OutputType is DialogTurn
    schema = parser.get_output_jsonschema()
    assert schema["title"] == "DialogTurn"
    assert set(schema["properties"]) == {
        "action",
        "target",
        "tone",
        "content",
        "nonverbal",
        "interrupt_after",
        "warning",
    }
    assert schema["properties"]["action"]["enum"] == ["speak", "interrupt", "silent", "react"]


def test_dialog_turn_fields_and_defaults() -> None:
    result = DialogTurn(action="speak")
    assert result.model_dump() == {
        "action": "speak",
        "target": None,
        "tone": None,
        "content": "",
        "nonverbal": None,
        "interrupt_after": None,
        "warning": None,
    }
    with pytest.raises(pydantic.ValidationError):
        DialogTurn(action="shout")  # type: ignore[arg-type]


def test_format_instructions_hold_the_seed_patterns() -> None:
    instructions = DialogOutputParser().get_format_instructions()
    assert instructions == DIALOG_FORMAT_INSTRUCTIONS
    for pattern in [
        '[TO: Bob, TONE: angry] "Why did you do that?"',
        '[TONE: nervous] "Maybe we should all calm down."',
        '[TO: Alice, TONE: apologetic, *looks down*] "I\'m sorry."',
        '[INTERRUPT after "I want to", TONE: furious] "No! Stop right there!"',
        "[SILENT]",
        "[SILENT, *crosses arms*]",
        "[REACT, TONE: shocked, *drops coffee mug*]",
    ]:
        assert pattern in instructions
        assert parse(pattern).warning is None  # the instructions parse strictly


def test_invoke_with_a_message_and_with_text() -> None:
    parser = DialogOutputParser()
    expected = parse(STREAMED)
    assert parser.invoke(AIMessage(content=STREAMED)) == expected
    assert parser.invoke(STREAMED) == expected
    blocks = AIMessage(content=[{"type": "text", "text": STREAMED}])
    assert parser.invoke(blocks) == expected


def test_parse_result_with_chat_generation() -> None:
    generation = ChatGeneration(message=AIMessage(content=STREAMED))
    assert DialogOutputParser().parse_result([generation]) == parse(STREAMED)


def test_a_refusal_block_becomes_a_wrapped_turn() -> None:
    message = AIMessage(content=[{"type": "refusal", "refusal": "I can't help with that."}])
    result = DialogOutputParser().invoke(message)
    assert (result.content, result.warning) == ("I can't help with that.", engine.WRAPPED)


def test_lcel_invoke_batch_and_ainvoke() -> None:
    chain = PROMPT | FakeListChatModel(responses=[STREAMED, "[SILENT]"]) | DialogOutputParser()
    assert chain.invoke(INPUT) == parse(STREAMED)
    assert chain.invoke(INPUT) == turn(action="silent")
    results = chain.batch([INPUT, INPUT])
    assert {r.action for r in results} == {"speak", "silent"}


async def test_aparse_and_ainvoke() -> None:
    parser = DialogOutputParser(stats=ParseStats())
    assert await parser.aparse(STREAMED) == parse(STREAMED)
    chain = PROMPT | FakeListChatModel(responses=['[TO: Bob] "Hello"']) | parser
    assert (await chain.ainvoke(INPUT)).warning == "Missing required TONE field"
    assert parser.stats is not None
    assert parser.stats.snapshot()["dialog"] == {
        "success": 1,
        "recovered": 1,
        "fallback": 0,
        "failed": 0,
    }


def test_pickle_and_deepcopy_keep_the_stats() -> None:
    stats = ParseStats()
    parser = DialogOutputParser(stats=stats)
    parser.parse(STREAMED)
    for clone in (pickle.loads(pickle.dumps(parser)), copy.deepcopy(parser)):
        assert isinstance(clone, DialogOutputParser)
        assert clone.stats == stats
        assert clone.parse("[SILENT]") == turn(action="silent")
    result = parse(STREAMED)
    assert pickle.loads(pickle.dumps(result)) == result


def test_stats_outcomes_and_table() -> None:
    stats = ParseStats()
    parser = DialogOutputParser(stats=stats)
    for text in [STREAMED, "[SILENT]", '[TO: Bob] "Hello"', "plain words"]:
        parser.parse(text)
    assert stats.snapshot() == {
        "dialog": {"success": 2, "recovered": 1, "fallback": 1, "failed": 0}
    }
    assert "dialog" in stats.table()
    assert parser.parse_with_outcome('[TO: Bob] "Hello"')[1] == "recovered"


def test_parse_report_event_in_a_run() -> None:
    recorder = EventRecorder()
    chain = PROMPT | FakeListChatModel(responses=['[TO: Bob] "Hello"']) | DialogOutputParser()
    chain.invoke(INPUT, config={"callbacks": [recorder]})
    assert recorder.events == [
        (
            "parse_report",
            {
                "outcome": "recovered",
                "parser": "DialogOutputParser",
                "format": "dialog",
                "error": "Missing required TONE field",
            },
        )
    ]


def test_no_event_outside_a_run() -> None:
    assert parse("[SILENT]").action == "silent"  # no callbacks, no error
