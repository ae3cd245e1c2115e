"""The ``slurm`` section's own checks, held to the upstream grammar of each value: the login set's authorized keys
are ``authorized_keys`` lines as sshd(8) reads them (options included), the accounting database is a host, never a
URL with credentials, and the Slurm cluster's namespace is no platform namespace."""

from __future__ import annotations

from typing import Any

import pytest

from gpu_platform.stack import load_platform
from tests.support import ssh_keys
from tests.support.refusals import config_problems
from tests.support.stacks import declared_h100_and_l4

KEYS = "gpu-platform:slurm.login.rootSshAuthorizedKeys"


def _stack(cloud: str = "existing", **slurm: Any) -> dict[str, Any]:
    return {
        "cloud": cloud,
        "cluster": {"name": "onprem", "kubeconfig": "apiVersion: v1"},
        "gpuPools": declared_h100_and_l4(),
        "gpuOperator": {"driver": {"owner": "operator"}},
        "slurm": {"enabled": True, "pools": ["h100"], **slurm},
    }


@pytest.mark.parametrize(
    "line",
    [
        ssh_keys.ED25519,
        ssh_keys.RSA_2048,
        f"restrict,pty {ssh_keys.ED25519}",
        f'from="10.0.0.0/8,192.168.0.0/16",no-agent-forwarding {ssh_keys.ED25519}',
        f'command="/usr/bin/sinfo --long",restrict {ssh_keys.ECDSA_P256}',
        f'environment="A=b c",expiry-time="20301231" {ssh_keys.RSA_2048}',
        f"{ssh_keys.ED25519.rsplit(' ', 1)[0]}",  # no comment
    ],
)
def test_authorized_keys_lines_with_or_without_options_plan(line: str) -> None:
    text = f"# the platform team\n{line}\n\n{ssh_keys.ED25519}\n"
    spec = load_platform(_stack(login={"rootSshAuthorizedKeys": text}))
    assert spec.slurm is not None and spec.slurm.login.root_ssh_authorized_keys == text


@pytest.mark.parametrize(
    ("line", "why"),
    [
        ("-----BEGIN OPENSSH PRIVATE KEY-----", "private key"),
        (ssh_keys.ED25519.replace("ssh-ed25519", "ssh-rsa", 1), "labelled ssh-rsa but its base64 body holds"),
        ("ssh-ed25519 AAAAC3Nza example", "not base64"),
        (f"restrict,banana {ssh_keys.ED25519}", "'banana' is not an sshd option"),
        (f"restrict, pty {ssh_keys.ED25519}", "a comma ends the options"),
        (f'command="unclosed {ssh_keys.ED25519}', "unclosed double quote"),
    ],
)
def test_lines_that_are_no_authorized_key_are_refused_saying_why(line: str, why: str) -> None:
    reason = config_problems(_stack(login={"rootSshAuthorizedKeys": f"{ssh_keys.ED25519}\n{line}\n"}))[KEYS]
    assert reason.startswith("line 2 ") and why in reason, reason


DATABASE = {"passwordSecret": {"name": "slurm-db", "key": "password"}}
HOST = "gpu-platform:slurm.accounting.database.host"


@pytest.mark.parametrize(
    ("host", "why"),
    [
        ("mysql://slurm:hunter2@db.example.internal:3306/slurm", "URL with credentials"),
        ("mysql://db.example.internal", "is a URL"),
        ("slurm:hunter2@db.example.internal", "credentials"),
        ("db.example.internal:3306", "port"),
        ("db example", "not a host name"),
    ],
)
def test_an_accounting_host_with_a_url_or_credentials_is_refused(host: str, why: str) -> None:
    accounting = {"enabled": True, "database": {"host": host, **DATABASE}}
    reason = config_problems(_stack(accounting=accounting))[HOST]
    assert why in reason, reason
    assert "hunter2" not in reason, "a password is never repeated in a message"


@pytest.mark.parametrize("host", ["db.example.internal", "10.0.0.12", "mariadb", "fd00::12"])
def test_a_bare_host_plans(host: str) -> None:
    spec = load_platform(_stack(accounting={"enabled": True, "database": {"host": host, **DATABASE}}))
    assert spec.slurm is not None and spec.slurm.database is not None and spec.slurm.database.host == host


@pytest.mark.parametrize("namespace", ["kube-slurm", "kube-system"])
def test_the_slurm_namespace_is_no_kubernetes_namespace(namespace: str) -> None:
    assert "gpu-platform:slurm.namespace" in config_problems(_stack(namespace=namespace))
