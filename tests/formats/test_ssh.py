"""OpenSSH public keys and ``authorized_keys`` lines as sshd(8) reads them."""

from __future__ import annotations

import pytest

from gpu_platform.formats.ssh import PublicKey, parse_public_key
from tests.support import ssh_keys


@pytest.mark.parametrize(
    ("line", "options"),
    [
        ("restrict,pty", ("restrict", "pty")),
        ('from="10.0.0.0/8,192.168.0.0/16",no-pty', ('from="10.0.0.0/8,192.168.0.0/16"', "no-pty")),
        ('command="echo \\"a b\\"",Restrict', ('command="echo \\"a b\\""', "Restrict")),
    ],
)
def test_options_are_read_with_quotes_and_commas(line: str, options: tuple[str, ...]) -> None:
    key = parse_public_key(f"{line} {ssh_keys.ED25519}", options=True)
    assert isinstance(key, PublicKey) and key.options == options and key.comment == "ops@example"


def test_rsa_keys_know_their_size_and_the_body_names_its_type() -> None:
    assert isinstance(key := parse_public_key(ssh_keys.RSA_2048), PublicKey) and key.rsa_bits == 2048
    assert isinstance(key := parse_public_key(ssh_keys.RSA_1024), PublicKey) and key.rsa_bits == 1024
    mixed = parse_public_key(ssh_keys.RSA_2048.replace("ssh-rsa", "ssh-ed25519", 1))
    assert isinstance(mixed, str) and "holds 'ssh-rsa'" in mixed


@pytest.mark.parametrize(
    ("line", "why"),
    [
        (f"restrict {ssh_keys.ED25519}", "does not start with a key type"),  # options only where allowed
        ("ssh-ed25519", "followed by the base64 key"),
        ("ssh-ed25519 !!!! x", "not base64"),
        ("-----BEGIN OPENSSH PRIVATE KEY-----", "private key"),
    ],
)
def test_what_is_no_public_key_says_why(line: str, why: str) -> None:
    reason = parse_public_key(line)
    assert isinstance(reason, str) and why in reason
