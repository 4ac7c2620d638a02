"""The registry of tool-call dialects: one record a dialect.

A record names the dialect, its markers (the tokens that open and close a call block), how its
body is read (``reader``), what is left of the answer once the calls are taken out
(``remaining``, a rule of `remaining_content`), how the chat model prompts in it (``writers``,
see `call_writers`), the few differences of its body that the JSON/Python reader handles, and
the model families that write it. The code reads these fields, never a dialect's name:
`dialects` finds the blocks and reads them with the record's reader, the stream splitter holds
text at the same markers, ``answer_content`` applies the record's rule and `tool_prompts` its
writers. Adding a dialect is one record here, plus its reader when the body is new (a built-in
reader's name, or the reader function itself), plus its tests; ``docs/tool-call-dialects.md``
shows one.

Readers by name:

- ``calls``: JSON calls (``{"name": .., "arguments": ..}``, lists, BFCL's ``{"f": {..}}``) or
  Python calls, with the JSON engine's repairs;
- ``tool_call``: as ``calls``, or Qwen3-Coder's ``<function=..>`` elements, or GLM's
  ``NAME<arg_key>..``, whichever the body holds;
- ``xml`` / ``invoke`` / ``dsml``: parameter elements (see
  `markup_calls`);
- ``kimi``, ``gemma``: those models' own forms; ``harmony``: gpt-oss's messages;
- ``tool_calls``: a JSON list, or Hunyuan's ``<tool_call>`` elements; ``hunyuan``, ``gemma4``,
  ``functionary``: see `markup_variants`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from langchain_robust_parsers.engine.calls.call_writers import (
    JSON_WRITER,
    PYTHON_WRITER,
    CallWriter,
    name_args_writer,
    tagged_json_writer,
    tagged_xml_writer,
)
from langchain_robust_parsers.engine.calls.glm_forms import (
    glm_form,
    read_glm_compact,
    read_glm_json,
)
from langchain_robust_parsers.engine.calls.harmony import harmony_content
from langchain_robust_parsers.engine.calls.ifm_calls import (
    IFM_CALL_CLOSE,
    IFM_CALL_OPEN,
    IFM_GROUP_CLOSE,
    IFM_GROUP_OPEN,
    ifm_unclosed_is_prose,
    read_ifm,
)
from langchain_robust_parsers.engine.calls.inkling_calls import (
    INKLING_END,
    INKLING_INVOKE,
    inkling_content,
)
from langchain_robust_parsers.engine.calls.markup_calls import (
    FUNCTION,
    FUNCTION_CLOSE,
    FUNCTION_OPEN,
    INVOKE,
    KIMI_ARGS,
    STEP_SEPS,
    function_unclosed_is_prose,
    read_arg_pairs,
    read_elements,
    read_gemma,
    read_kimi,
    sniff_tool_call,
)
from langchain_robust_parsers.engine.calls.markup_variants import (
    HY_SEP,
    cwm_unclosed_is_prose,
    functionary_unclosed_is_prose,
    is_hunyuan_body,
    is_hunyuan_call,
    read_cwm,
    read_functionary,
    read_gemma4,
    read_hunyuan,
)
from langchain_robust_parsers.engine.calls.minicpm_xml import MINICPM_OPENERS, read_minicpm
from langchain_robust_parsers.engine.calls.parsed_call import ParsedCall
from langchain_robust_parsers.engine.calls.prefixed_markup import (
    ATEM_PREFIX,
    DSML_SPACED_PREFIX,
    MINIMAX_NS,
    read_atem,
    read_dsml,
    read_dsml_spaced,
    read_minimax_ns,
)
from langchain_robust_parsers.engine.calls.remaining_content import (
    RemainingRule,
    content_after_text_recipient,
    content_around_calls,
)
from langchain_robust_parsers.engine.calls.xtml_calls import XTML_CLOSE, XTML_OPEN, read_xtml
from langchain_robust_parsers.engine.repair_log import RepairLog

__all__ = [
    "DEEPSEEK_SEPS",
    "DIALECT_RECORDS",
    "GEMMA_MARKER",
    "KIMI_MARKER",
    "MARKERS",
    "MINIMAX_MARKER",
    "MISTRAL_ARGS",
    "MISTRAL_CALL_ID",
    "MISTRAL_MARKER",
    "SEED_MARKER",
    "TOOL_CALL_MARKER",
    "DialectRecord",
    "Marker",
    "MarkupReader",
    "call_writer",
    "dialect_record",
    "markup_reader",
    "register_dialect",
]

MarkupReader = Callable[[str, int, int, RepairLog, bool], list[ParsedCall]]
"""A reader of a block body ``text[a:b]``: ``(text, a, b, log, closed) -> calls``, raising
`CallDecodeError` for a body that
does not decode; ``closed`` is false for a block cut off before its closing tag."""


@dataclass(frozen=True)
class Marker:
    """A dialect's opening marker and the tags that may close its block (none: the block runs
    to the next marker or the end of the text). ``follow``: characters one of which must come
    right after the opener (``functools[``). ``nested``: the marker may sit inside another
    dialect's block (``<function=`` inside ``<tool_call>``), where it is part of that block.
    ``from_marker``: the reader reads the block from the marker itself (it carries the name)."""

    dialect: str
    open: str
    close: tuple[str, ...] = ()
    ignore_case: bool = False
    follow: str = ""
    nested: bool = False
    from_marker: bool = False


@dataclass(frozen=True)
class DialectRecord:
    """One tool-call dialect.

    ``reader``: the name of a built-in reader (see the module doc) or a `MarkupReader`
    of the dialect's own. ``remaining``: the content left once the calls are taken out (by
    default the text before the first call block as written, ``''`` when only whitespace, as
    the serving stacks' tool parsers leave it). ``content_without_calls``: an answer read in
    this dialect loses its markup even when it holds no call (harmony's channels).
    ``writers``: how the chat model prompts in this dialect (the first is the default writer).

    What the JSON/Python reader (``calls``) does differently for some dialects:
    ``name_form``: a body may be a bare name and its JSON arguments, ``name[ARGS]{..}``
    (``name_args``, Mistral's) or ``name<sep>{..}`` (``name_sep``, DeepSeek's separators);
    ``name_led``: a body starts with a bare function name, so one cut off after it is still a
    call, not prose (implied by ``name_form``); ``call_suffix``: dropped from the end of call
    names (Llama 3.1's built-in tools, ``brave_search.call(..)``); ``unmarked_first_call``: the
    prompt wrote the first call's marker, so a call before the first marker is a block too.
    ``unclosed_is_prose``: is the body ``text[a:b]`` of a block cut off before its closing tag
    prose that names the marker (``use <tool_call> tags``)? By default, when it holds neither
    calls nor markup its reader knows. ``instructions``: what
    ``FunctionCallOutputParser.get_format_instructions`` asks for in this dialect: a Python
    list of calls, a JSON list, or a JSON object inside the dialect's first marker.
    """

    name: str
    markers: tuple[Marker, ...]
    reader: str | MarkupReader
    families: str
    example: str
    remaining: RemainingRule = content_around_calls
    writers: tuple[CallWriter, ...] = ()
    content_without_calls: bool = False
    name_form: Literal["name_args", "name_sep"] | None = None
    name_led: bool = False
    call_suffix: str = ""
    unmarked_first_call: bool = False
    unclosed_is_prose: Callable[[str, int, int], bool] | None = None
    instructions: Literal["python_list", "json_list", "json_in_tags"] = "json_list"


_NAME_START = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_"
"""What follows Functionary's ``>>>`` before a recipient (a Python prompt's ``>>> `` has a
space)."""


def _m(dialect: str, open_: str, *close: str, **kw: bool | str) -> Marker:
    return Marker(dialect, open_, tuple(close), **kw)  # type: ignore[arg-type]


# The markers the fast path (clean_blocks), the prompt writer (tool_prompts) and the GUI
# readers (engine/agents) also use.
TOOL_CALL_MARKER = _m("tool_call", "<tool_call>", "</tool_call>", ignore_case=True)
SEED_MARKER = _m("seed_tool_call", "<seed:tool_call>", "</seed:tool_call>")
MINIMAX_MARKER = _m("minimax", "<minimax:tool_call>", "</minimax:tool_call>")
KIMI_MARKER = _m("kimi", "<|tool_call_begin|>", "<|tool_call_end|>")
GEMMA_MARKER = _m("gemma", "<start_function_call>", "<end_function_call>")
MISTRAL_MARKER = _m("mistral", "[TOOL_CALLS]", "[/TOOL_CALLS]")
MISTRAL_ARGS = "[ARGS]"
"""Between a Mistral call's name and its JSON arguments (``[TOOL_CALLS]f[ARGS]{..}``)."""
MISTRAL_CALL_ID = "[CALL_ID]"
"""Between a Mistral call's name and the id some of its templates give it."""
DSML_SPACED_WRAPPERS = ("calls", "tool_calls", "function_calls")
"""Block names under DeepSeek V4.1's spaced prefix: its own ``calls``, and the names V4 and V3.2
wrote (``tool_calls``, ``function_calls``), which a V4.1 answer may still carry."""

DIALECT_RECORDS: tuple[DialectRecord, ...] = (
    DialectRecord(
        "tool_call",
        (TOOL_CALL_MARKER,),
        "tool_call",
        "Hermes 2/3, Qwen 2.5/3, QwQ, Qwen3-Coder, GLM-4.5/4.6/4.7, ERNIE 4.5, Granite 4, "
        "Falcon 3, xLAM, Hermes-style fine-tunes",
        '<tool_call>{"name": "f", "arguments": {..}}</tool_call>; '
        "<tool_call><function=f><parameter=k>v</parameter></function></tool_call>; "
        "<tool_call>f<arg_key>k</arg_key><arg_value>v</arg_value></tool_call>",
        instructions="json_in_tags",
        writers=(
            tagged_json_writer("hermes", TOOL_CALL_MARKER.open, TOOL_CALL_MARKER.close[0]),
            tagged_xml_writer("xml", TOOL_CALL_MARKER.open, TOOL_CALL_MARKER.close[0]),
        ),
    ),
    DialectRecord(
        "seed_tool_call",
        (SEED_MARKER,),
        "tool_call",
        "Seed-OSS",
        "<seed:tool_call><function=f><parameter=k>v</parameter></function></seed:tool_call>",
    ),
    DialectRecord(
        "function_xml",
        (
            _m("function_xml", FUNCTION_OPEN, FUNCTION_CLOSE, nested=True, from_marker=True),
            _m(
                "function_xml",
                "<" + FUNCTION + " name=",
                FUNCTION_CLOSE,
                nested=True,
                from_marker=True,
            ),
        ),
        "xml",
        "Qwen3-Coder and Step-3.5 without the wrapper, MiniCPM, Llama 3.1 (<function=f>{..})",
        '<function=f><parameter=k>v</parameter></function>; <function name="f">..</function>',
        unclosed_is_prose=function_unclosed_is_prose,
    ),
    DialectRecord(
        "minimax",
        (MINIMAX_MARKER,),
        "invoke",
        "MiniMax-M2, M2.1, M2.5",
        '<minimax:tool_call><invoke name="f"><parameter name="k">v</parameter></invoke>'
        "</minimax:tool_call>",
    ),
    DialectRecord(
        "dsml",
        (
            _m("dsml", "<｜DSML｜function_calls>", "</｜DSML｜function_calls>"),
            _m("dsml", "<｜DSML｜tool_calls>", "</｜DSML｜tool_calls>"),
        ),
        "dsml",
        "DeepSeek V3.2; DeepSeek V4 (<｜DSML｜tool_calls>, an invoke may hold JSON)",
        '<｜DSML｜function_calls><｜DSML｜invoke name="f"><｜DSML｜parameter name="k" '
        'string="true">v</｜DSML｜parameter></｜DSML｜invoke></｜DSML｜function_calls>',
    ),
    DialectRecord(
        "deepseek",
        (
            _m("deepseek", "<｜tool▁call▁begin｜>", "<｜tool▁call▁end｜>"),
            _m("deepseek", "<|tool▁call▁begin|>", "<|tool▁call▁end|>"),
        ),
        "calls",
        "DeepSeek V3, R1, V3.1",
        "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>f\\n```json\\n{..}\\n```"
        "<｜tool▁call▁end｜>; <｜tool▁call▁begin｜>f<｜tool▁sep｜>{..}<｜tool▁call▁end｜>; ASCII "
        "spellings (<|tool▁call▁begin|>, <|tool_call_begin|>f<|tool_sep|>{..}) alike",
        name_form="name_sep",
    ),
    DialectRecord(
        "kimi",
        (KIMI_MARKER,),
        "kimi",
        "Kimi K2",
        "<|tool_calls_section_begin|><|tool_call_begin|>functions.f:0"
        "<|tool_call_argument_begin|>{..}<|tool_call_end|><|tool_calls_section_end|>",
        name_form="name_sep",  # DeepSeek's name<sep>{..} under the ASCII markers Kimi shares
    ),
    DialectRecord(
        "step3",
        (_m("step3", "<｜tool_call_begin｜>", "<｜tool_call_end｜>"),),
        "kimi",
        "Step-3",
        '<｜tool_call_begin｜>function<｜tool_sep｜><steptml:invoke name="f">'
        '<steptml:parameter name="k">v</steptml:parameter></steptml:invoke><｜tool_call_end｜>',
        name_form="name_sep",  # DeepSeek's ASCII separators are also Step-3's
    ),
    DialectRecord(
        "harmony",
        (),
        "harmony",
        "gpt-oss",
        "<|channel|>commentary to=functions.f <|constrain|>json<|message|>{..}<|call|>",
        # The final and preamble text around the calls; the headers and the analysis channel
        # are never content, with or without calls.
        remaining=harmony_content,
        content_without_calls=True,
    ),
    DialectRecord(
        "gemma",
        (GEMMA_MARKER,),
        "gemma",
        "FunctionGemma",
        "<start_function_call>call:f{k:<escape>v<escape>,n:3}<end_function_call>",
        name_led=True,
    ),
    DialectRecord(
        "mistral",
        (MISTRAL_MARKER,),
        "calls",
        "Mistral, Mixtral, Ministral, Magistral, Devstral, Mistral Small 3.x",
        "[TOOL_CALLS][{..}]; [TOOL_CALLS]f[ARGS]{..}; [TOOL_CALLS]f{..}",
        name_form="name_args",
        writers=(name_args_writer("mistral", MISTRAL_MARKER.open, MISTRAL_ARGS),),
    ),
    DialectRecord(
        "python_tag",
        (_m("python_tag", "<|python_tag|>", "<|eom_id|>", "<|eot_id|>"),),
        "calls",
        "Llama 3.1/3.2/3.3",
        '<|python_tag|>{"name": "f", "parameters": {..}}; {..}',
        call_suffix=".call",
    ),
    DialectRecord(
        "python_start",
        (_m("python_start", "<|python_start|>", "<|python_end|>"),),
        "calls",
        "Llama 4",
        "<|python_start|>[f(k=1)]<|python_end|>",
    ),
    DialectRecord(
        "pipe_tool_call",
        (_m("pipe_tool_call", "<|tool_call|>", "<|/tool_call|>", *TOOL_CALL_MARKER.close),),
        "calls",
        "Granite 3.x",
        '<|tool_call|>[{"name": "f", "arguments": {..}}]',
    ),
    DialectRecord(
        "functools",
        (_m("functools", "functools", follow="["),),
        "calls",
        "Phi-4-mini",
        'functools[{"name": "f", "arguments": {..}}]',
    ),
    DialectRecord(
        "tool_call_start",
        (_m("tool_call_start", "<|tool_call_start|>", "<|tool_call_end|>"),),
        "calls",
        "LFM2",
        "<|tool_call_start|>[f(k=1)]<|tool_call_end|>",
        instructions="python_list",
    ),
    DialectRecord(
        "tool_calls",
        (_m("tool_calls", "<tool_calls>", "</tool_calls>", ignore_case=True),),
        "tool_calls",
        "Jamba, Hunyuan A13B, MiniMax-M1, Apriel; Hunyuan HY v3 / v4 (key/value tags)",
        '<tool_calls>[{"name": "f", "arguments": {..}}]</tool_calls>; <tool_calls><tool_call>f'
        "<tool_sep><arg_key>k</arg_key><arg_value>v</arg_value></tool_call></tool_calls>",
    ),
    DialectRecord(
        "hunyuan",
        (_m("hunyuan", "<tool_calls:", from_marker=True),),
        "hunyuan",
        "Hunyuan HY v4 checkpoints whose tags carry a suffix",
        "<tool_calls:6124c78e><tool_call:6124c78e>f<arg_key:6124c78e>k</arg_key:6124c78e>"
        "<arg_value:6124c78e>v</arg_value:6124c78e></tool_call:6124c78e></tool_calls:6124c78e>",
    ),
    DialectRecord(
        "gemma4",
        (_m("gemma4", "<|tool_call>", "<tool_call|>", "<turn|>", follow="c"),),
        "gemma4",
        "Gemma 4",
        '<|tool_call>call:f{k:<|"|>v<|"|>,n:3}<tool_call|>',
    ),
    DialectRecord(
        "functionary",
        (_m("functionary", ">>>", follow=_NAME_START),),
        "functionary",
        "Functionary v3.2 (the first call may come without its >>>)",
        '>>>f\n{"k": "v"}>>>g\n{}',
        remaining=content_after_text_recipient,
        unmarked_first_call=True,
        unclosed_is_prose=functionary_unclosed_is_prose,
    ),
    DialectRecord(
        "dots",
        (_m("dots", "<dots_function_call>", "</dots_function_call>"),),
        "tool_call",
        "dots.llm",
        '<dots_function_call><invoke name="f"><parameter name="k">v</parameter></invoke>'
        "</dots_function_call>; a JSON call inside",
    ),
    DialectRecord(
        "pangu",
        (_m("pangu", "[unused11]", "[unused12]"),),
        "calls",
        "openPangu (its tokenizer's names for <|tool_call_start|> and <|tool_call_end|>)",
        '[unused11][{"name": "f", "arguments": {..}}][unused12]',
    ),
    DialectRecord(
        "cwm",
        (_m("cwm", "<tool:", "</tool>", ignore_case=True),),
        "cwm",
        "CWM (Code World Model), Cursor-style tool tags",
        '<tool: bash>\nterminal ls -la\n</tool>; <tool: function>\nf {"k": "v"}\n</tool>',
        unclosed_is_prose=cwm_unclosed_is_prose,
    ),
    DialectRecord(
        "function_calls",
        (_m("function_calls", "<function_calls>", "</function_calls>", ignore_case=True),),
        "tool_call",
        "OLMo 3 (Python calls, one a line); <invoke> elements",
        '<function_calls>f(k="v")\\ng(n=1)</function_calls>',
    ),
    DialectRecord(
        "function_call",
        (_m("function_call", "<function_call>", "</function_call>", ignore_case=True),),
        "calls",
        "granite-20b-functioncalling",
        '<function_call> {"name": "f", "arguments": {..}}',
    ),
    DialectRecord(
        "toolcall",
        (_m("toolcall", "<TOOLCALL>", "</TOOLCALL>", ignore_case=True),),
        "calls",
        "Nemotron, BFCL's tag",
        '<TOOLCALL>[{"name": "f", "arguments": {..}}]</TOOLCALL>',
        instructions="python_list",  # BFCL's prompt for Nemotron asks for Python calls
    ),
    DialectRecord(
        "apertus",
        (_m("apertus", "<|tools_prefix|>", "<|tools_suffix|>"),),
        "calls",
        "Apertus",
        '<|tools_prefix|>[{"f": {..}}]<|tools_suffix|>',
    ),
    DialectRecord(
        "internlm",
        (_m("internlm", "<|action_start|><|plugin|>", "<|action_end|>"),),
        "calls",
        "InternLM2 / 2.5",
        '<|action_start|><|plugin|>{"name": "f", "parameters": {..}}<|action_end|>',
    ),
    DialectRecord(
        "longcat",
        (_m("longcat", "<longcat_tool_call>", "</longcat_tool_call>"),),
        "calls",
        "LongCat-Flash",
        '<longcat_tool_call>{"name": "f", "arguments": {..}}</longcat_tool_call>',
    ),
    DialectRecord(
        "command",
        (_m("command", "<|START_ACTION|>", "<|END_ACTION|>"),),
        "calls",
        "Command R7B, Command A",
        '<|START_ACTION|>[{"tool_name": "f", "parameters": {..}}]<|END_ACTION|>',
    ),
    DialectRecord(
        "gigachat",
        (_m("gigachat", "function call<|role_sep|>"),),
        "calls",
        "GigaChat 3",
        'function call<|role_sep|>\\n{"name": "f", "arguments": {..}}',
    ),
    DialectRecord(
        "ifm",
        (
            _m("ifm", IFM_GROUP_OPEN, IFM_GROUP_CLOSE),
            _m("ifm", IFM_CALL_OPEN, IFM_CALL_CLOSE, nested=True),
        ),
        read_ifm,
        "K2-Horizon (IFM tool formats: xml, xml_typed, json)",
        "<ifm|tool_calls><ifm|tool_call>f<ifm|arg_key>k</ifm|arg_key><ifm|arg_value>v"
        "</ifm|arg_value></ifm|tool_call></ifm|tool_calls>; <ifm|tool_call>{..}</ifm|tool_call>",
        unclosed_is_prose=ifm_unclosed_is_prose,
    ),
    DialectRecord(
        "minicpm",
        tuple(_m("minicpm", o, FUNCTION_CLOSE, from_marker=True) for o in MINICPM_OPENERS),
        read_minicpm,
        "MiniCPM 5 served without the tokenizer's clean-up (tags collapsed, Ġ/Ċ markers)",
        '<functionname="f"><paramname="k">v</param></function>; '
        '<function\u0120name="f"><param\u0120name="k">New\u0120York</param></function>',
    ),
    DialectRecord(
        "dsml_spaced",
        tuple(
            _m(
                "dsml_spaced",
                "<" + DSML_SPACED_PREFIX + w + ">",
                "</" + DSML_SPACED_PREFIX + w + ">",
            )
            for w in DSML_SPACED_WRAPPERS
        ),
        read_dsml_spaced,
        "DeepSeek V4.1 (the space after ｜DSML｜ is part of every tag name)",
        '<｜DSML｜ calls><｜DSML｜ invoke name="f"><｜DSML｜ parameter name="k" string="true">v'
        "</｜DSML｜ parameter></｜DSML｜ invoke></｜DSML｜ calls>",
    ),
    DialectRecord(
        "xtml",
        (_m("xtml", XTML_OPEN, XTML_CLOSE),),
        read_xtml,
        "Kimi K3",
        '<|open|>tools<|sep|><|open|>call tool="f" index="1"<|sep|><|open|>argument key="k" '
        'type="string"<|sep|>v<|close|>argument<|sep|><|close|>call<|sep|><|close|>tools<|sep|>',
    ),
    DialectRecord(
        "minimax_ns",
        (_m("minimax_ns", MINIMAX_NS + "<tool_call>", MINIMAX_NS + "</tool_call>"),),
        read_minimax_ns,
        "MiniMax M3 (every tag after its ]<]minimax[>[ namespace token)",
        ']<]minimax[>[<tool_call>]<]minimax[>[<invoke name="f">]<]minimax[>[<k>v]<]minimax[>[</k>'
        "]<]minimax[>[</invoke>]<]minimax[>[</tool_call>",
    ),
    DialectRecord(
        "atem",
        (
            _m(
                "atem",
                "<" + ATEM_PREFIX + "function_calls>",
                "</" + ATEM_PREFIX + "function_calls>",
            ),
        ),
        read_atem,
        "Muse Glimmer",
        '<atem:function_calls><atem:invoke name="f"><atem:parameter name="k">v</atem:parameter>'
        "</atem:invoke></atem:function_calls>",
    ),
    DialectRecord(
        "inkling",
        (_m("inkling", INKLING_INVOKE, INKLING_END),),
        "calls",
        "Inkling",
        '<|message_model|>f<|content_invoke_tool_json|>{"name": "f", "args": {..}}<|end_message|>',
        remaining=inkling_content,
    ),
    DialectRecord(
        "python",
        (),
        "calls",
        "BFCL's format; any model prompted with Python call syntax",
        '[f(k="v"), g(n=1)]',
        writers=(PYTHON_WRITER,),
        instructions="python_list",
    ),
    DialectRecord(
        "json",
        (),
        "calls",
        "any model prompted for a JSON list of calls",
        '[{"name": "f", "arguments": {"k": "v"}}]',
        writers=(JSON_WRITER,),
    ),
)
"""Every dialect, marker dialects in the order their markers are tried at one position."""

MARKERS: tuple[Marker, ...] = tuple(m for r in DIALECT_RECORDS for m in r.markers)
READERS: dict[str, str | MarkupReader] = {r.name: r.reader for r in DIALECT_RECORDS}
_BY_NAME: dict[str, DialectRecord] = {r.name: r for r in DIALECT_RECORDS}
_WRITERS: dict[str, CallWriter] = {w.name: w for r in DIALECT_RECORDS for w in r.writers}


def dialect_record(name: str) -> DialectRecord | None:
    """The record of the dialect ``name``; ``None`` for a name that is not a record's
    (``auto``, ``bare``, ``none``)."""
    return _BY_NAME.get(name)


def call_writer(name: str) -> CallWriter:
    """The writer called ``name`` (``hermes``, ``python``...), from the record that holds it;
    raises `KeyError` for a name no record writes."""
    return _WRITERS[name]


def register_dialect(record: DialectRecord) -> None:
    """Add ``record`` to the registry, after the built-in dialects.

    The decoders and the stream splitter build their marker tables when they are first
    imported, so a dialect defined outside this module is registered before they are (a
    plugin's import, or a test's own interpreter). The prompt writers are looked up on use.
    """
    global DIALECT_RECORDS, MARKERS
    if record.name in _BY_NAME:
        raise ValueError(f"dialect {record.name!r} is registered already")
    DIALECT_RECORDS = (*DIALECT_RECORDS, record)
    MARKERS = (*MARKERS, *record.markers)
    READERS[record.name] = record.reader
    _BY_NAME[record.name] = record
    _WRITERS.update((w.name, w) for w in record.writers)


def _xml(text: str, a: int, b: int, log: RepairLog, closed: bool) -> list[ParsedCall]:
    return read_elements(text, a, b, log, closed=closed, element=FUNCTION)


def _invoke(text: str, a: int, b: int, log: RepairLog, closed: bool) -> list[ParsedCall]:
    return read_elements(text, a, b, log, closed=closed, element=INVOKE)


def _dsml(text: str, a: int, b: int, log: RepairLog, closed: bool) -> list[ParsedCall]:
    return read_dsml(text, a, b, log, closed)


def _glm(text: str, a: int, b: int, log: RepairLog, closed: bool) -> list[ParsedCall]:
    return read_arg_pairs(text, a, b, log, closed=closed)


def _kimi(text: str, a: int, b: int, log: RepairLog, closed: bool) -> list[ParsedCall]:
    return read_kimi(text, a, b, log, closed=closed)


def _gemma(text: str, a: int, b: int, log: RepairLog, closed: bool) -> list[ParsedCall]:
    return read_gemma(text, a, b, log, closed=closed)


def _hunyuan(text: str, a: int, b: int, log: RepairLog, closed: bool) -> list[ParsedCall]:
    return read_hunyuan(text, a, b, log, closed=closed)


def _gemma4(text: str, a: int, b: int, log: RepairLog, closed: bool) -> list[ParsedCall]:
    return read_gemma4(text, a, b, log, closed=closed)


def _functionary(text: str, a: int, b: int, log: RepairLog, closed: bool) -> list[ParsedCall]:
    return read_functionary(text, a, b, log, closed=closed)


def _cwm(text: str, a: int, b: int, log: RepairLog, closed: bool) -> list[ParsedCall]:
    return read_cwm(text, a, b, log, closed=closed)


_MARKUP: dict[str, MarkupReader] = {
    "hunyuan": _hunyuan,
    "gemma4": _gemma4,
    "functionary": _functionary,
    "cwm": _cwm,
    "xml": _xml,
    "invoke": _invoke,
    "dsml": _dsml,
    "glm": _glm,
    "kimi": _kimi,
    "gemma": _gemma,
    "glm_json": read_glm_json,
    "glm_compact": read_glm_compact,
}


DEEPSEEK_SEPS = ("<｜tool▁sep｜>", "<|tool▁sep|>", *STEP_SEPS)
"""DeepSeek's separator as its tokenizer writes it, and the ASCII spellings (``|`` for
``｜``, ``_`` for ``▁``) that serving stacks and fine-tunes print (the ``_`` ones are also
Step-3's)."""


def _deepseek_body(text: str, a: int, b: int) -> bool:
    """Is a ``<|tool_call_begin|>`` body without Kimi K2's argument token DeepSeek's
    ``name<sep>{..}`` (ASCII spellings of its tokens) rather than Step-3's?"""
    if text.find("steptml:", a, b) >= 0:
        return False
    return any(text.find(sep, a, b) >= 0 for sep in DEEPSEEK_SEPS)


def markup_reader(
    dialect: str, text: str, a: int, b: int, *, closed: bool = True
) -> MarkupReader | None:
    """The markup reader for a block of ``dialect`` whose body is ``text[a:b]``; ``None``
    when it is read as JSON or Python calls."""
    reader = READERS.get(dialect, "calls")
    if not isinstance(reader, str):
        return reader  # the dialect's own reader
    if reader == "tool_call":
        reader = sniff_tool_call(text, a, b, closed=closed) or glm_form(text, a, b) or "calls"
        if reader == "calls" and text.find(HY_SEP, a, b) >= 0 and is_hunyuan_call(text, a, b):
            reader = "hunyuan"  # HY v3's NAME<tool_sep>.. (cut off before </tool_calls>)
    elif reader == "tool_calls":
        reader = "hunyuan" if is_hunyuan_body(text, a, b) else "calls"
    elif reader == "kimi" and text.find(KIMI_ARGS, a, b) < 0 and _deepseek_body(text, a, b):
        reader = "calls"  # DeepSeek's name<sep>{..} under the ASCII markers Kimi K2 shares
    return _MARKUP.get(reader)
