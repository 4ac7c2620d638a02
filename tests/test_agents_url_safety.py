"""URL safety for browser actions: hostile URLs refused, ordinary ones normalised and passed."""

from __future__ import annotations

import json

import pytest
from cpu_clock import best_cpu_seconds
from hypothesis import example, given, strategies as st

from langchain_robust_parsers import ActionOutputParser
from langchain_robust_parsers.engine.agents.actions import (
    ClickAction,
    GotoUrlAction,
    NewTabAction,
    NullAction,
    UploadFileAction,
    build_action,
)
from langchain_robust_parsers.engine.agents.url_safety import UrlPolicy, check_url

# Each form reaches a host an agent must not be sent to by default: the cloud metadata server,
# this machine, the private network, or a scheme that is not the web.
HOSTILE = [
    # the cloud metadata server, in its many spellings
    "http://169.254.169.254/latest/meta-data/iam/security-credentials/",
    "169.254.169.254/latest/user-data",
    "http://2852039166/latest/meta-data/",  # 169.254.169.254 as one decimal number
    "http://0xa9fea9fe/",  # ... as one hex number
    "http://0xA9.0xFE.0xA9.0xFE/",
    "http://0251.0376.0251.0376/",  # ... in octal parts
    "http://169.254.43518/",  # ... short form: the last part fills two bytes
    "http://[::ffff:169.254.169.254]/",
    "http://[::ffff:a9fe:a9fe]/",
    "http://[64:ff9b::a9fe:a9fe]/",  # NAT64
    "http://metadata.google.internal/computeMetadata/v1/",
    "http://metadata/computeMetadata/v1/",
    "http://instance-data/latest/meta-data/",
    # loopback
    "http://localhost:8080/admin",
    "localhost:3000/api/users",
    "HTTP://LOCALHOST/",
    "http://localhost./",
    "http://LocalHost.:80",
    "http://admin.localhost/",
    "http://127.0.0.1/",
    "127.0.0.1:5000",
    "http://127.1/",
    "http://127.0.1/",
    "http://2130706433/",
    "http://0x7f000001/",
    "http://0x7f.1/",
    "http://0177.0.0.1/",
    "http://017700000001/",
    "http://127.000.000.001/",
    "http://127.0.0.1./",
    "http://127.0.0.1../",
    "http://127.254.3.9/",
    "http://[::1]/",
    "http://[0:0:0:0:0:0:0:1]:8000/",
    "http://[::ffff:127.0.0.1]/",
    "http://[::ffff:7f00:1]/",
    "http://[::127.0.0.1]/",  # IPv4-compatible (deprecated)
    "http://[2002:7f00:1::]/",  # 6to4 around 127.0.0.1
    "http://localtest.me/",
    "http://app.lvh.me:3000/",
    "http://127.0.0.1.nip.io/",
    "http://10-0-0-5.sslip.io/",
    # userinfo, fragments and queries that hide the real host
    "http://good.example.com@127.0.0.1/",
    "http://user:pass@10.0.0.5:8443/",
    "http://example.com:80@192.168.1.1/",
    "http://a@b@localhost/",
    "http://127.0.0.1#@example.com/",
    "http://127.0.0.1?@example.com/",
    # percent-encoding, IDN and compatibility forms of the host
    "http://%31%32%37%2e%30%2e%30%2e%31/",
    "http://%6c%6f%63%61%6c%68%6f%73%74/",
    "http://ⓛⓞⓒⓐⓛⓗⓞⓢⓣ/",
    "http://１２７．０．０．１/",
    "http://127。0。0。1/",
    "http://①②⑦.0.0.1/",
    "http://ＬＯＣＡＬＨＯＳＴ/",
    # backslashes, missing slashes, whitespace and control characters
    "http:\\\\127.0.0.1\\admin",
    "http:/\\127.0.0.1/",
    "http:127.0.0.1/",
    "//localhost/x",
    "  http://127.0.0.1/  ",
    "ht\ttp://10.0.0.5/",
    "http://127.0.\n0.1/",
    "\x00http://127.0.0.1/",
    "http://127.0.0.1\x00.example.com/",
    # private, shared, unspecified, multicast and reserved ranges
    "http://10.0.0.5/",
    "http://10.255.255.255/",
    "http://172.16.0.1/",
    "http://172.31.255.254/",
    "http://192.168.0.1/",
    "http://192.168.1.1:8080/setup.cgi",
    "http://100.64.0.1/",
    "http://100.127.255.254/",
    "http://0.0.0.0:8000/",
    "http://0/",
    "http://224.0.0.1/",
    "http://239.255.255.250:1900/",
    "http://240.0.0.1/",
    "http://255.255.255.255/",
    "http://[::]/",
    "http://[fd00::1]/",
    "http://[fc00::abcd]/",
    "http://[fe80::1]/",
    "http://[fe80::1%25eth0]/",
    "http://[ff02::1]/",
    "http://[::ffff:10.0.0.5]/",
    "http://[::ffff:192.168.0.1]/",
    "http://[2002:c0a8:101::]/",  # 6to4 around 192.168.1.1
    "http://[64:ff9b::10.1.2.3]/",
    # internal names
    "http://printer.local/",
    "http://jenkins.internal/job/deploy",
    "http://nas.home.arpa/",
    "http://router/",
    "http://intranet/wiki",
    # schemes that are not the web
    "ftp://example.com/file.txt",
    "file:///etc/passwd",
    "FILE://localhost/c:/windows/win.ini",
    "javascript:alert(document.cookie)",
    "JaVaScRiPt:alert(1)",
    "java\tscript:alert(1)",
    "data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==",
    "gopher://127.0.0.1:6379/_FLUSHALL",
    "dict://example.com:11211/stat",
    "ws://example.com/socket",
    "chrome://settings",
    "view-source:https://example.com",
    "about:blank",
    # not a URL a browser would open
    "",
    "   ",
    "http://",
    "http://:80/",
    "http://[::1/",
    "http://example.com:99999/",
    "http://example.com:8o/",
    "http://256.1.1.1/",
    "http://1.2.3.4.5/",
    "http://08.0.0.1/",
    "http://%ff%fe/",
]

SAFE = [
    ("https://example.com", "https://example.com"),
    ("https://example.com/", "https://example.com/"),
    ("http://example.com/search?q=robust+parsers#results", None),
    ("example.com/a", "https://example.com/a"),
    ("www.wikipedia.org", "https://www.wikipedia.org"),
    ("HTTPS://Example.COM/Path/To", "https://example.com/Path/To"),
    ("https://example.com./", "https://example.com/"),
    ("  https://shop.example.co.uk/cart  ", "https://shop.example.co.uk/cart"),
    ("https://user@example.com/", "https://user@example.com/"),
    ("https://api.example.com:8443/v1/items?id=3", None),
    ("https://8.8.8.8/", "https://8.8.8.8/"),
    ("http://1.1.1.1:8080/", "http://1.1.1.1:8080/"),
    ("https://93.184.216.34/index.html", None),
    ("https://172.32.0.1/", "https://172.32.0.1/"),  # just past 172.16.0.0/12
    ("https://100.128.0.1/", "https://100.128.0.1/"),  # just past 100.64.0.0/10
    ("https://192.169.0.1/", "https://192.169.0.1/"),
    ("https://11.0.0.1/", "https://11.0.0.1/"),
    ("https://[2606:4700:4700::1111]/", "https://[2606:4700:4700::1111]/"),
    ("https://[2001:4860:4860::8888]:443/dns", None),
    ("https://münchen.de/", "https://münchen.de/"),
    ("https://xn--mnchen-3ya.de/", "https://xn--mnchen-3ya.de/"),
    ("https://例え.jp/", "https://例え.jp/"),
    ("https://localhost.example.com/", "https://localhost.example.com/"),
    ("https://my-local-shop.com/", "https://my-local-shop.com/"),
    ("https://internal.example.org/report.pdf", None),
    ("https://127.example.com/", "https://127.example.com/"),
    ("https://en.wikipedia.org/wiki/Python_(programming_language)", None),
    ("https://example.com/a\\b", "https://example.com/a/b"),
    ("https://docs.example.com/path with space", None),
]


@pytest.mark.parametrize("url", HOSTILE)
def test_hostile_urls_are_refused_by_default(url: str) -> None:
    verdict = check_url(url)
    assert verdict.url is None, f"{url!r} was let through as {verdict.url!r}"
    assert verdict.reason


def test_the_hostile_table_is_large() -> None:
    assert len(HOSTILE) >= 40
    assert len(set(HOSTILE)) == len(HOSTILE)


@pytest.mark.parametrize(("url", "expected"), SAFE)
def test_public_urls_pass_and_are_normalised(url: str, expected: str | None) -> None:
    verdict = check_url(url)
    assert verdict.reason is None
    assert verdict.url == (expected if expected is not None else url.strip())


@pytest.mark.parametrize(
    ("url", "reason"),
    [
        ("http://169.254.169.254/", "169.254.169.254 is a link-local address"),
        ("http://2130706433/", "127.0.0.1 is a loopback address"),
        ("http://10.0.0.5/", "10.0.0.5 is a private address"),
        ("http://100.64.0.1/", "100.64.0.1 is a shared (CGNAT) address"),
        ("http://0.0.0.0/", "0.0.0.0 is an unspecified address"),
        ("http://[::ffff:127.0.0.1]/", "is a loopback address (127.0.0.1 inside IPv6)"),
        ("ftp://example.com/", "the scheme 'ftp' is not allowed"),
        ("http://localhost/", "'localhost' names a local or internal host"),
    ],
)
def test_the_reason_names_what_was_refused(url: str, reason: str) -> None:
    verdict = check_url(url)
    assert verdict.reason is not None and reason in verdict.reason


def test_the_decision_is_made_on_the_host_a_browser_would_reach() -> None:
    # The userinfo before the last `@` is skipped; the canonical host is what was checked.
    assert check_url("http://127.0.0.1@example.com/").url == "http://127.0.0.1@example.com/"
    assert check_url("http://example.com\\@127.0.0.1/").url == "http://example.com/@127.0.0.1/"
    assert check_url("http://0x7f.1/").host == "127.0.0.1"


def test_allow_private_lets_local_hosts_through_but_not_other_schemes() -> None:
    policy = UrlPolicy(allow_private=True)
    assert check_url("http://localhost:8080/admin", policy).url == "http://localhost:8080/admin"
    assert check_url("http://0x7f.1/", policy).url == "http://127.0.0.1/"
    assert check_url("10.0.0.5/dashboard", policy).url == "https://10.0.0.5/dashboard"
    assert check_url("http://169.254.169.254/", policy).url == "http://169.254.169.254/"
    assert check_url("ftp://10.0.0.5/", policy).url is None
    assert check_url("file:///etc/passwd", policy).url is None
    assert check_url("http://256.1.1.1/", policy).url is None  # still not an address at all


def test_the_allowed_schemes_can_be_changed() -> None:
    policy = UrlPolicy(schemes=frozenset({"https"}))
    assert check_url("http://example.com/", policy).url is None
    assert check_url("example.com", policy).url == "https://example.com"
    ftp = UrlPolicy(schemes=frozenset({"http", "https", "ftp"}))
    assert check_url("ftp://ftp.example.com/pub/", ftp).url == "ftp://ftp.example.com/pub/"
    assert check_url("ftp://10.0.0.5/pub/", ftp).url is None


@given(st.text(max_size=80))
@example(":²")  # a port of digits that are not ASCII ones
@example("http://example.com:١٢/")
def test_any_text_gives_a_verdict(text: str) -> None:
    verdict = check_url(text)
    assert (verdict.url is None) != (verdict.reason is None)
    if verdict.url is not None:
        assert check_url(verdict.url).url == verdict.url  # the normal form is stable


@given(st.ip_addresses())
def test_every_non_public_address_is_refused(address: object) -> None:
    import ipaddress

    assert isinstance(address, (ipaddress.IPv4Address, ipaddress.IPv6Address))
    host = f"[{address}]" if address.version == 6 else str(address)
    verdict = check_url(f"http://{host}/")
    if not address.is_global or address.is_multicast:
        assert verdict.url is None


def test_a_huge_url_is_refused() -> None:
    assert check_url("http://example.com/" + "a" * 2_000_000).url is None


@pytest.mark.slow
def test_a_huge_url_is_refused_quickly() -> None:
    url = "http://example.com/" + "a" * 2_000_000
    assert check_url(url).url is None
    assert best_cpu_seconds(lambda: check_url(url), 3) < 0.5


# ----------------------------------------------------------------------------- in actions


def test_goto_url_to_a_private_host_is_a_null_action_with_the_reason() -> None:
    parser = ActionOutputParser()
    text = json.dumps(
        {
            "actions": [
                {"action_type": "GOTO_URL", "url": "http://169.254.169.254/latest/meta-data/"},
                {"action_type": "CLICK", "id": "next"},
            ]
        }
    )
    refused, click = parser.parse(text)
    assert isinstance(refused, NullAction)
    assert refused.reason is not None
    assert "169.254.169.254 is a link-local address" in refused.reason
    assert refused.reason.startswith("invalid GOTO_URL action: url: unsafe URL")
    assert isinstance(click, ClickAction)


@pytest.mark.parametrize("url", ["http://localhost/", "10.0.0.5", "ftp://files.example.com/x"])
def test_the_parser_refuses_each_issue_example(url: str) -> None:
    (action,) = ActionOutputParser().parse(json.dumps({"action_type": "GOTO_URL", "url": url}))
    assert isinstance(action, NullAction)


def test_allow_private_urls_on_the_parser() -> None:
    parser = ActionOutputParser(allow_private_urls=True)
    (action,) = parser.parse('{"action_type": "goto", "url": "localhost:3000/login"}')
    assert isinstance(action, GotoUrlAction)
    assert action.url == "https://localhost:3000/login"
    (ftp,) = parser.parse('{"action_type": "GOTO_URL", "url": "ftp://10.0.0.5/"}')
    assert isinstance(ftp, NullAction)


def test_allowed_url_schemes_on_the_parser() -> None:
    parser = ActionOutputParser(allowed_url_schemes=("https",))
    (plain,) = parser.parse('{"action_type": "GOTO_URL", "url": "http://example.com/"}')
    assert isinstance(plain, NullAction)
    (secure,) = parser.parse('{"action_type": "GOTO_URL", "url": "example.com/docs"}')
    assert secure == GotoUrlAction(url="https://example.com/docs")


def test_a_missing_scheme_gets_https() -> None:
    (action,) = ActionOutputParser().parse('{"action_type": "GOTO_URL", "url": "example.com/a"}')
    assert action == GotoUrlAction(url="https://example.com/a")


@pytest.mark.parametrize(
    "item",
    [
        {"action_type": "NEW_TAB", "url": "http://127.0.0.1:9222/json"},
        {"action_type": "UPLOAD_FILE", "id": "cv", "file_url": "file:///home/me/.ssh/id_rsa"},
        {"action_type": "UPLOAD_FILE", "id": "cv", "file_url": "/etc/shadow"},
        {"action_type": "CLICK", "id": "dl", "file_url": "http://10.1.2.3/report.pdf"},
    ],
)
def test_every_url_field_is_checked(item: dict[str, object]) -> None:
    built = build_action(item)
    assert isinstance(built.action, NullAction)
    assert built.reason is not None and "unsafe URL" in built.reason


def test_url_fields_that_are_safe_are_normalised() -> None:
    tab = build_action({"action_type": "new_tab", "url": "news.example.com"}).action
    assert tab == NewTabAction(url="https://news.example.com")
    upload = build_action(
        {"action_type": "UPLOAD_FILE", "id": "cv", "file_url": "https://files.example.com/cv.pdf"}
    ).action
    assert isinstance(upload, UploadFileAction)
    assert upload.file_url == "https://files.example.com/cv.pdf"
    # A new tab without a URL is a blank tab, not a refused one.
    assert build_action({"action_type": "NEW_TAB", "url": None}).action == NewTabAction()


def test_an_empty_optional_url_means_none() -> None:
    click = build_action({"action_type": "CLICK", "id": "b", "file_url": ""}).action
    assert click == ClickAction(element_id="b")
    assert build_action({"action_type": "NEW_TAB", "url": "  "}).action == NewTabAction()
    goto = build_action({"action_type": "GOTO_URL", "url": ""}).action
    assert isinstance(goto, NullAction)


def test_a_policy_in_the_validation_context() -> None:
    context = {"url_policy": UrlPolicy(allow_private=True)}
    action = GotoUrlAction.model_validate({"url": "localhost:3000/"}, context=context)
    assert action.url == "https://localhost:3000/"


def test_validating_without_the_parser_uses_the_safe_default() -> None:
    with pytest.raises(ValueError, match="unsafe URL"):
        GotoUrlAction(url="http://192.168.1.1/")
    with pytest.raises(ValueError, match="unsafe URL"):
        GotoUrlAction.model_validate({"url": "gopher://example.com/"})
