"""Which URLs a browser agent may be sent to: the policy for ``GOTO_URL`` and every URL field.

A model that writes ``{"action_type": "GOTO_URL", "url": "http://169.254.169.254/"}`` (because a
page told it to, or by mistake) turns the agent into a proxy into the machine's own network:
server-side request forgery. `check_url` refuses, by default, schemes other than ``http``
and ``https`` and hosts that are, literally or by a well-known name, loopback, link-local,
private, shared (CGNAT), unspecified, multicast or reserved.

The host is decided on the form a browser would compute from the text (the WHATWG URL
standard's host parsing), so the many spellings of one address are one address: tabs and line
breaks removed, backslashes read as slashes, the userinfo before the last ``@`` skipped,
percent-escapes decoded, full-width and compatibility characters folded (NFKC), trailing dots
dropped, IPv4 in decimal, hex, octal or short form (``2130706433``, ``0x7f.1``, ``0177.0.0.1``,
``127.1``), and IPv6 with an IPv4 address inside (``[::ffff:127.0.0.1]``, 6to4, NAT64). No
name is ever looked up: a public name that resolves to a private address (DNS rebinding) is the
fetching layer's to refuse, after resolution. Nothing here imports LangChain.
"""

from __future__ import annotations

import ipaddress
import re
import unicodedata
from dataclasses import dataclass
from urllib.parse import unquote

__all__ = [
    "DEFAULT_URL_SCHEMES",
    "MAX_URL_LENGTH",
    "UrlCheck",
    "UrlPolicy",
    "check_url",
]

DEFAULT_URL_SCHEMES: frozenset[str] = frozenset({"http", "https"})
"""Schemes an agent may open by default: ``file:``, ``javascript:``, ``data:``, ``ftp:``... read
local files, run code or reach services a web task never needs."""

MAX_URL_LENGTH = 8192
"""Characters of a URL checked. Browsers and servers refuse far shorter ones in practice (about
2,000 to 8,000); a longer value is garbage, and refusing it keeps the check constant-time."""

MAX_HOST_LENGTH = 253
"""The longest DNS name (RFC 1035); a longer host cannot be resolved."""

LOCAL_NAMES: frozenset[str] = frozenset(
    {
        "localhost",
        "localhost.localdomain",
        "ip6-localhost",
        "ip6-loopback",
        "metadata",  # Google Cloud's metadata server, by its short name
        "metadata.google.internal",
        "instance-data",  # AWS's metadata server, by name (resolves to 169.254.169.254)
        "localtest.me",  # public names registered to resolve to 127.0.0.1
        "lvh.me",
        "vcap.me",
    }
)
"""Names that mean this machine or its cloud's metadata server, whatever a resolver says."""

LOCAL_SUFFIXES: tuple[str, ...] = (
    ".localhost",  # RFC 6761: always loopback
    ".local",  # mDNS, the link itself
    ".internal",  # reserved for private use (ICANN, 2024)
    ".home.arpa",  # RFC 8375: home networks
    ".localdomain",
    ".lan",
    ".intranet",
    # Wildcard DNS services: `10.0.0.5.nip.io` resolves to 10.0.0.5, so any address is reachable
    # by a public-looking name.
    ".nip.io",
    ".sslip.io",
    ".xip.io",
    ".localtest.me",
    ".lvh.me",
    ".vcap.me",
)
"""Name suffixes of hosts that are local by definition or resolve to any address asked for."""

_EXTRA_REFUSED = (
    (ipaddress.ip_network("100.64.0.0/10"), "shared (CGNAT)"),
    (ipaddress.ip_network("0.0.0.0/8"), "unspecified"),
)
"""Ranges ``ipaddress`` does not flag as private in every Python version."""

_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.\-]*:")
_PORT_ONLY = re.compile(r"\d*(?:[/?#]|\Z)")
_TAB_OR_NEWLINE = dict.fromkeys(map(ord, "\t\n\r"))
_FULL_STOPS = str.maketrans({"\u3002": ".", "\uff0e": ".", "\uff61": "."})
_FORBIDDEN_HOST = frozenset(" #%/:<>?@[\\]^|\x7f")
_SIX_TO_FOUR = ipaddress.ip_network("2002::/16")
_NAT64 = ipaddress.ip_network("64:ff9b::/96")
_IPV4_COMPATIBLE = ipaddress.ip_network("::/96")


@dataclass(frozen=True)
class UrlPolicy:
    """What `check_url` lets through: the allowed schemes (lower case) and whether hosts on
    private, loopback and link-local networks are allowed (``allow_private``)."""

    schemes: frozenset[str] = DEFAULT_URL_SCHEMES
    allow_private: bool = False


@dataclass(frozen=True)
class UrlCheck:
    """The verdict on one URL: ``url`` is the normalised URL to open (the scheme added when it
    was missing, the host in the form that was checked), or ``None`` with ``reason`` set."""

    url: str | None
    reason: str | None = None
    host: str | None = None

    @property
    def allowed(self) -> bool:
        return self.url is not None


def _refuse(reason: str, host: str | None = None) -> UrlCheck:
    return UrlCheck(None, reason, host)


def _clean(raw: str) -> str:
    """The URL as a browser reads it: surrounding spaces and control characters stripped, tabs
    and line breaks inside removed."""
    return raw.strip("".join(map(chr, range(0x21)))).translate(_TAB_OR_NEWLINE)


def _split_scheme(url: str) -> tuple[str | None, str]:
    """``(scheme, rest)``; ``None`` when the text starts without one. ``localhost:8080/x`` and
    ``example.com:443`` are a host and a port, not a scheme."""
    m = _SCHEME.match(url)
    if m is None:
        return None, url
    rest = url[m.end() :]
    if "." in m.group() or (_PORT_ONLY.match(rest) and not rest.startswith(("/", "\\"))):
        return None, url
    return m.group()[:-1].lower(), rest


def _authority(rest: str) -> tuple[str, str]:
    """The authority of a special-scheme URL and the path, query and fragment after it; slashes
    and backslashes before the authority are skipped, as browsers do (``http:\\\\host``)."""
    rest = rest.replace("\\", "/").lstrip("/")
    end = len(rest)
    for stop in "/?#":
        at = rest.find(stop)
        if 0 <= at < end:
            end = at
    return rest[:end], rest[end:]


def _host_port(authority: str) -> tuple[str, str, str] | str:
    """``(userinfo@, host, :port)`` of an authority, or the reason it has no usable host."""
    at = authority.rfind("@")
    userinfo, hostport = (authority[: at + 1], authority[at + 1 :]) if at >= 0 else ("", authority)
    if hostport.startswith("["):
        close = hostport.find("]")
        if close < 0:
            return "an IPv6 host without its closing bracket"
        host, port = hostport[: close + 1], hostport[close + 1 :]
    else:
        colon = hostport.find(":")
        host, port = (hostport, "") if colon < 0 else (hostport[:colon], hostport[colon:])
    # ASCII digits only: ``isdigit`` also takes ``²`` and other digits ``int`` refuses
    if port and port != ":" and not (port[0] == ":" and port[1:].isascii() and port[1:].isdigit()):
        return f"the port {port[1:]!r} is not a number"
    if port[1:] and int(port[1:]) > 0xFFFF:
        return f"the port {port[1:]} is out of range"
    return userinfo, host, port


def _ipv4_part(part: str) -> int | None:
    """One part of a WHATWG IPv4 address: decimal, ``0x`` hex or ``0``-led octal."""
    if part[:2].lower() == "0x":
        digits, base = part[2:] or "0", 16
    elif len(part) > 1 and part[0] == "0":
        digits, base = part[1:], 8
    else:
        digits, base = part, 10
    if len(digits) > 32:  # no 32-bit number has more digits, in any base
        return None
    try:
        return int(digits, base) if digits.isascii() and digits.isalnum() else None
    except ValueError:
        return None


def _ends_in_number(host: str) -> bool:
    """WHATWG: a host whose last label is a number is an IPv4 address (or invalid)."""
    last = host.rsplit(".", 1)[-1]
    if last.isascii() and last.isdigit():
        return True
    return last[:2].lower() == "0x" and all(c in "0123456789abcdefABCDEF" for c in last[2:])


def _parse_ipv4(host: str) -> ipaddress.IPv4Address | None:
    """The address of a WHATWG IPv4 host (``127.1``, ``0x7f000001``, ``0177.0.0.1``), or
    ``None`` when it is not a valid one."""
    parts = host.split(".")
    if len(parts) > 4 or any(not p for p in parts):
        return None
    numbers = [_ipv4_part(p) for p in parts]
    if any(n is None for n in numbers):
        return None
    values = [n for n in numbers if n is not None]
    if any(n > 255 for n in values[:-1]) or values[-1] >= 256 ** (5 - len(values)):
        return None
    address = values[-1]
    for i, n in enumerate(values[:-1]):
        address += n << (8 * (3 - i))
    return ipaddress.IPv4Address(address)


def _embedded_ipv4(address: ipaddress.IPv6Address) -> ipaddress.IPv4Address | None:
    """The IPv4 address an IPv6 one carries: mapped, 6to4, NAT64 or (deprecated) compatible."""
    if address.ipv4_mapped is not None:
        return address.ipv4_mapped
    if address in _SIX_TO_FOUR:
        return address.sixtofour
    if address in _NAT64 or (address in _IPV4_COMPATIBLE and int(address) > 1):
        return ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)
    return None


def _address_class(address: ipaddress.IPv4Address | ipaddress.IPv6Address) -> str | None:
    """What kind of non-public address ``address`` is (``"loopback address"``...), or ``None``
    when it is a public one."""
    if isinstance(address, ipaddress.IPv6Address):
        inner = _embedded_ipv4(address)
        if inner is not None:
            found = _address_class(inner)
            return None if found is None else f"{found} ({inner} inside IPv6)"
    for network, name in _EXTRA_REFUSED:
        if address.version == network.version and address in network:
            return f"{name} address"
    checks = (
        (address.is_unspecified, "unspecified"),
        (address.is_loopback, "loopback"),
        (address.is_link_local, "link-local"),
        (address.is_multicast, "multicast"),
        (address.is_private, "private"),
        (address.is_reserved, "reserved"),
        (not address.is_global, "non-public"),
    )
    return next((f"{name} address" for flagged, name in checks if flagged), None)


def _normalise_host(host: str) -> str | UrlCheck:
    """The host as a browser computes it (percent-decoded, NFKC-folded, lower case, trailing
    dots dropped), or a refusal when no browser would accept it."""
    try:
        decoded = unquote(host, errors="strict") if "%" in host else host
    except UnicodeDecodeError:
        return _refuse("the host has percent-escapes that are not UTF-8")
    folded = unicodedata.normalize("NFKC", decoded.translate(_FULL_STOPS)).lower()
    folded = folded.translate(_FULL_STOPS).rstrip(".")
    if not folded:
        return _refuse("the URL has no host")
    if len(folded) > MAX_HOST_LENGTH:
        return _refuse("the host name is too long", folded)
    bad = next((c for c in folded if c in _FORBIDDEN_HOST or not c.isprintable()), None)
    if bad is not None:
        return _refuse(f"the host contains {bad!r}", folded)
    return folded


@dataclass(frozen=True)
class _HostVerdict:
    host: str  # the canonical form: a normalised name, a dotted IPv4, a bracketed IPv6
    reason: str | None = None  # why it is refused; None: allowed
    local: bool = False  # refused for where it is, which `allow_private` permits


def _address_verdict(
    canonical: str, address: ipaddress.IPv4Address | ipaddress.IPv6Address
) -> _HostVerdict:
    found = _address_class(address)
    if found is None:
        return _HostVerdict(canonical)
    article = "an" if found[0] in "aeiou" else "a"
    return _HostVerdict(canonical, f"{canonical} is {article} {found}", local=True)


def _check_host(host: str) -> _HostVerdict:
    """The canonical host and whether (and why) it is refused."""
    if host.startswith("["):
        inside = host[1:-1]
        if "%" in inside:
            return _HostVerdict(host, "an IPv6 zone id is not part of a web URL")
        try:
            v6 = ipaddress.IPv6Address(inside)
        except ValueError:
            return _HostVerdict(host, "the host is not a valid IPv6 address")
        return _address_verdict(f"[{v6.compressed}]", v6)
    normal = _normalise_host(host)
    if isinstance(normal, UrlCheck):
        return _HostVerdict(normal.host or host, normal.reason)
    if _ends_in_number(normal):
        v4 = _parse_ipv4(normal)
        if v4 is None:
            return _HostVerdict(normal, f"{normal!r} is not a valid IPv4 address")
        return _address_verdict(str(v4), v4)
    if normal in LOCAL_NAMES or normal.endswith(LOCAL_SUFFIXES):
        return _HostVerdict(normal, f"{normal!r} names a local or internal host", local=True)
    if "." not in normal:
        reason = f"{normal!r} is a single-label name, resolved on the local network"
        return _HostVerdict(normal, reason, local=True)
    return _HostVerdict(normal)


def check_url(raw: str, policy: UrlPolicy | None = None) -> UrlCheck:
    """Decide whether an agent may open ``raw``; never looks a name up.

    Returns the normalised URL (``https://`` added when the scheme is missing, the host in the
    checked form) or the reason it is refused: a scheme outside ``policy.schemes``, no host, a
    host no browser accepts, or (unless ``policy.allow_private``) a host that is loopback,
    link-local, private, shared, unspecified, multicast or reserved, literally or by name.
    """
    policy = policy or UrlPolicy()
    if not isinstance(raw, str):
        return _refuse("the URL is not a string")
    if len(raw) > MAX_URL_LENGTH:
        return _refuse(f"the URL is longer than {MAX_URL_LENGTH} characters")
    url = _clean(raw)
    if not url:
        return _refuse("the URL is empty")
    scheme, rest = _split_scheme(url)
    if scheme is None:
        scheme = "https"
        if url.startswith(("//", "\\\\")):
            rest = url
    if scheme not in policy.schemes:
        return _refuse(f"the scheme {scheme!r} is not allowed")
    if scheme not in ("http", "https", "ws", "wss", "ftp"):
        return UrlCheck(f"{scheme}:{rest}")  # an allowed scheme without a host to check
    authority, tail = _authority(rest)
    parts = _host_port(authority)
    if isinstance(parts, str):
        return _refuse(parts)
    userinfo, host, port = parts
    verdict = _check_host(host)
    if verdict.reason is not None and not (policy.allow_private and verdict.local):
        return _refuse(verdict.reason, verdict.host)
    path = tail.replace("\\", "/")  # browsers read a backslash in a web URL as a slash
    return UrlCheck(f"{scheme}://{userinfo}{verdict.host}{port}{path}", None, verdict.host)
