"""OpenSSH public keys and ``authorized_keys`` lines, read with the grammar of sshd(8), "AUTHORIZED_KEYS FILE
FORMAT" (OpenSSH 9.x): ``[options] keytype base64-key [comment]``.

The options field is optional and holds comma-separated options with no spaces except inside double quotes
(``restrict,pty``, ``from="10.0.0.0/8",command="/bin/true"``); a line without one starts with its key type. The
key's base64 body is the key in the SSH wire format (RFC 4253 section 6.6): a length-prefixed string naming its type
first, which must be the type the line names (``ssh-keygen`` writes them together; a pasted mix-up is not a key).
"""

from __future__ import annotations

import base64
import binascii
import re
from dataclasses import dataclass

KEY_TYPES = (
    "ssh-ed25519",
    "ssh-rsa",
    "ssh-dss",
    "ecdsa-sha2-nistp256",
    "ecdsa-sha2-nistp384",
    "ecdsa-sha2-nistp521",
    "sk-ssh-ed25519@openssh.com",
    "sk-ecdsa-sha2-nistp256@openssh.com",
)
"""The key types sshd(8) lists for ``authorized_keys``."""
CERT_SUFFIX = "-cert-v01@openssh.com"
"""A certificate of a key type is named ``<type minus any @openssh.com>-cert-v01@openssh.com``."""
FLAG_OPTIONS = frozenset(
    {
        "agent-forwarding",
        "cert-authority",
        "no-agent-forwarding",
        "no-port-forwarding",
        "no-pty",
        "no-user-rc",
        "no-x11-forwarding",
        "port-forwarding",
        "pty",
        "no-touch-required",
        "verify-required",
        "restrict",
        "user-rc",
        "x11-forwarding",
    }
)
"""sshd(8) options that take no value (matched case-insensitively, as sshd does)."""
VALUE_OPTIONS = frozenset(
    {"command", "environment", "expiry-time", "from", "permitlisten", "permitopen", "principals", "tunnel"}
)
"""sshd(8) options written ``name="value"``."""
_OPTION = re.compile(r'(?P<name>[A-Za-z0-9-]+)(?:="(?P<value>(?:[^"\\]|\\.)*)")?')
_BASE64 = re.compile(r"^[A-Za-z0-9+/]+={0,2}$")


def _cert_type(key_type: str) -> str:
    return key_type.removesuffix("@openssh.com") + CERT_SUFFIX


ALL_TYPES = frozenset(KEY_TYPES) | {_cert_type(t) for t in KEY_TYPES}


@dataclass(frozen=True)
class PublicKey:
    """One parsed key: its type, wire-format body, comment and the options written before it."""

    key_type: str
    blob: bytes
    comment: str = ""
    options: tuple[str, ...] = ()

    @property
    def rsa_bits(self) -> int | None:
        """The modulus size of an ``ssh-rsa`` key (``None`` for other types)."""
        if self.key_type != "ssh-rsa":
            return None
        fields = _strings(self.blob)
        if fields is None or len(fields) < 3:
            return None
        modulus = fields[2].lstrip(b"\x00")
        return (len(modulus) - 1) * 8 + modulus[0].bit_length() if modulus else 0


def _strings(blob: bytes) -> list[bytes] | None:
    """The length-prefixed strings of a wire-format key (``None`` when a length runs past the end)."""
    out, at = [], 0
    while at < len(blob):
        if at + 4 > len(blob):
            return None
        size = int.from_bytes(blob[at : at + 4], "big")
        at += 4
        if at + size > len(blob):
            return None
        out.append(blob[at : at + size])
        at += size
    return out


def _split_options(line: str) -> tuple[str, str] | str:
    """``(options, rest)`` of a line whose first field is not a key type; an unclosed quote is an error."""
    quoted, i = False, 0
    while i < len(line):
        c = line[i]
        if c == "\\" and quoted:
            i += 2
            continue
        if c == '"':
            quoted = not quoted
        elif c in " \t" and not quoted:
            return line[:i], line[i:].lstrip(" \t")
        i += 1
    return "unclosed double quote in the options" if quoted else "no key after the options"


def _options(text: str) -> tuple[str, ...] | str:
    """The options of ``text`` (``restrict,from="a,b"``), or why one is not an sshd option."""
    out: list[str] = []
    at = 0
    while at < len(text):
        match = _OPTION.match(text, at)
        if match is None:
            return f"'{text[at:]}' is not an option (name or name=\"value\")"
        name = match["name"].lower()
        if name in VALUE_OPTIONS and match["value"] is None:
            return f"option '{name}' needs a value (name=\"value\")"
        if name in FLAG_OPTIONS and match["value"] is not None:
            return f"option '{name}' takes no value"
        if name not in FLAG_OPTIONS | VALUE_OPTIONS:
            return f"'{match['name']}' is not an sshd option"
        out.append(match[0])
        at = match.end()
        if at < len(text):
            if text[at] != ",":
                return f"options are separated by commas, not '{text[at]}'"
            at += 1
            if at == len(text):
                return "a comma ends the options"
    return tuple(out)


def parse_public_key(text: str, *, options: bool = False) -> PublicKey | str:
    """One key line (``ssh-ed25519 AAAA... comment``); with ``options``, an ``authorized_keys`` line that may
    start with options. The key or why the line is not one."""
    line = text.strip()
    first = line.split(None, 1)[0] if line else ""
    opts: tuple[str, ...] = ()
    if first not in ALL_TYPES and "-----BEGIN" in line:
        return "is a private key or a PEM block, not an OpenSSH public key; never give the private key"
    if first not in ALL_TYPES:
        if not options:
            return f"does not start with a key type ({', '.join(KEY_TYPES)})"
        split = _split_options(line)
        if isinstance(split, str):
            return split
        parsed = _options(split[0])
        if isinstance(parsed, str):
            return parsed
        opts, line = parsed, split[1]
    fields = line.split(None, 2)
    if len(fields) < 2 or fields[0] not in ALL_TYPES:
        return f"has no key type ({', '.join(KEY_TYPES)}) followed by the base64 key"
    key_type, body = fields[0], fields[1]
    if not _BASE64.match(body) or len(body) % 4:
        return f"the {key_type} key is not base64"
    try:
        blob = base64.b64decode(body, validate=True)
    except binascii.Error:
        return f"the {key_type} key is not base64"
    strings = _strings(blob)
    if not strings or strings[0] != key_type.encode():
        inner = strings[0].decode("ascii", "replace") if strings else "nothing readable"
        return (
            f"the key is labelled {key_type} but its base64 body holds {inner!r}: a truncated or mixed-up key"
        )
    return PublicKey(key_type, blob, fields[2] if len(fields) > 2 else "", opts)
