"""Stack configuration for the offline plan: ``Pulumi.<stack>.yaml``, ``--config-file`` and the environment.

The Pulumi CLI hands a program its config as ``ns:key`` -> string (objects as JSON) plus a list of
secret keys; this module builds the same from files, refusing what the CLI would not accept or what
the plan cannot reproduce offline, each with a one-line message:

* YAML that does not parse, a document that is not a mapping, ``config:`` that is not a mapping;
* a file past the bounds of :mod:`gpu_platform.offline.stack_yaml` (size, nesting, aliases);
* a key given twice in one mapping, at any depth (the CLI's Go YAML parser refuses the file);
* ``environment:`` (Pulumi ESC imports): resolving them needs Pulumi Cloud, which an offline plan
  does not reach.

Values are read with the CLI's rules (YAML 1.2-like: ``1:30`` and ``yes`` are text; see
:mod:`gpu_platform.offline.stack_yaml`). ``secure:`` values never reach the program: they become :data:`SECURE_PLACEHOLDER`, kept secret.
"""

import json
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from gpu_platform.args.secret_settings import may_be_secret
from gpu_platform.errors import NAMESPACE
from gpu_platform.formats.secret import SECRET_STAND_IN
from gpu_platform.offline.errors import PlanInputError
from gpu_platform.offline.stack_yaml import MAX_BYTES, StackYaml, parse

SECURE_PLACEHOLDER = SECRET_STAND_IN
# Read by the SDK's config lookup (pulumi/runtime/config.py): PULUMI_CONFIG (JSON), the per-key
# PULUMI_CONFIG_<KEY> variables and PULUMI_CONFIG_SECRET_KEYS.
ENV_PREFIX = "PULUMI_CONFIG"


def load_yaml(path: Path) -> Any:
    """The YAML document in ``path``; any problem as one line ``path:line:col: problem``."""
    return read_yaml(path).doc


def read_yaml(path: Path) -> StackYaml:
    """``path`` parsed as the Pulumi CLI parses it (:mod:`gpu_platform.offline.stack_yaml`), bounded."""
    try:
        with path.open("rb") as handle:
            data = handle.read(MAX_BYTES + 1)
    except FileNotFoundError:
        raise PlanInputError(f"{path}: no such file") from None
    except OSError as exc:
        raise PlanInputError(f"{path}: cannot read: {exc}") from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        if len(data) <= MAX_BYTES:
            raise PlanInputError(f"{path}: cannot read: {exc}") from None
        text = data.decode("utf-8", "replace")
    return parse(text, path)


def config_section(path: Path, doc: Any, *, allow_environment: bool = False) -> dict[str, Any]:
    """The ``config:`` mapping of a stack-file-shaped document, checked."""
    if doc is None:
        return {}
    if not isinstance(doc, dict):
        raise PlanInputError(
            f"{path}: a stack file must be a YAML mapping (with a config: key), not a {type(doc).__name__}"
        )
    if "environment" in doc and not allow_environment:
        envs = doc["environment"]
        names = ", ".join(map(str, envs)) if isinstance(envs, list) else str(envs)
        raise PlanInputError(
            f"{path}: imports Pulumi ESC environment(s) ({names}), which the offline plan cannot resolve "
            "(that needs Pulumi Cloud): put the values they provide under config: for the plan, or pass "
            "them with --config-file FILE (a YAML file with a config: mapping, like a stack file)"
        )
    config = doc.get("config")
    if config is None:
        return {}
    if not isinstance(config, dict):
        raise PlanInputError(
            f"{path}: config: must be a mapping of key: value, not a {type(config).__name__}"
        )
    for key in config:
        if not isinstance(key, str) or not key:
            raise PlanInputError(f"{path}: config key {key!r} is not a string")
    return config


def engine_config(
    project: str, config: dict[str, Any], texts: dict[str, str] | None = None
) -> tuple[dict[str, str], list[str]]:
    """``config:`` as the engine passes it: ``ns:key`` -> string (JSON for objects), and secret keys;
    ``texts`` are the scalars' source texts (``scalar_texts``)."""
    out: dict[str, str] = {}
    secrets: set[str] = set()

    def scrub(value: Any, key: str) -> Any:
        if isinstance(value, dict) and set(value) == {"secure"}:
            secrets.add(key)
            # An empty ciphertext decrypts to nothing: the program must see it empty to refuse it.
            empty = isinstance(value["secure"], str) and not value["secure"].strip()
            return "" if empty else SECURE_PLACEHOLDER
        if isinstance(value, dict):
            return {k: scrub(v, key) for k, v in value.items()}
        if isinstance(value, list):
            return [scrub(v, key) for v in value]
        return value

    for raw_key, raw_value in config.items():
        key = raw_key if ":" in raw_key else f"{project}:{raw_key}"
        value = scrub(raw_value, key)
        if isinstance(value, (int, float, bool)) and texts and raw_key in texts:
            out[key] = texts[raw_key]
        else:
            out[key] = value if isinstance(value, str) else json.dumps(value)
    return out, sorted(secrets)


def read_config_file(
    project: str, path: Path, *, allow_environment: bool = False
) -> tuple[dict[str, str], list[str]]:
    """A stack file (or a ``--config-file`` of the same shape) as engine config and secret keys."""
    parsed = read_yaml(path)
    section = config_section(path, parsed.doc, allow_environment=allow_environment)
    return engine_config(project, section, parsed.texts)


def environment_config() -> tuple[dict[str, str], list[str]]:
    """``PULUMI_CONFIG`` / ``PULUMI_CONFIG_SECRET_KEYS`` as the CLI sets them (``--use-env-config``).

    Values of secret keys are replaced by the placeholder: the plan never sees a decrypted secret.
    """
    raw = os.environ.get("PULUMI_CONFIG", "")
    config: dict[str, str] = {}
    if raw.strip():
        try:
            doc = json.loads(raw)
        except RecursionError:
            raise PlanInputError("PULUMI_CONFIG is nested too deeply to read") from None
        except ValueError as exc:
            raise PlanInputError(f"PULUMI_CONFIG is not valid JSON ({exc})") from None
        if not isinstance(doc, dict):
            raise PlanInputError(f"PULUMI_CONFIG must be a JSON object, not {type(doc).__name__}")
        config = {str(k): v if isinstance(v, str) else json.dumps(v) for k, v in doc.items()}
    raw_keys = os.environ.get("PULUMI_CONFIG_SECRET_KEYS", "")
    secrets: list[str] = []
    if raw_keys.strip():
        try:
            keys = json.loads(raw_keys)
        except RecursionError:
            raise PlanInputError("PULUMI_CONFIG_SECRET_KEYS is nested too deeply to read") from None
        except ValueError as exc:
            raise PlanInputError(f"PULUMI_CONFIG_SECRET_KEYS is not valid JSON ({exc})") from None
        if not isinstance(keys, list) or not all(isinstance(k, str) for k in keys):
            raise PlanInputError("PULUMI_CONFIG_SECRET_KEYS must be a JSON list of config keys")
        secrets = sorted(set(keys))
    for key in secrets:
        if key in config:
            config[key] = _mask_secret_value(config[key], key)
    return config, secrets


def _snake(key: str) -> str:
    return "".join(f"_{c.lower()}" if c.isupper() else c for c in key)


def _mask_secret_value(text: str, key: str = "") -> str:
    """A decrypted secret from the environment, as the plan may see it: a scalar becomes the
    placeholder; an object (the CLI marks the whole key secret when one leaf is) keeps its shape
    with string leaves replaced, since which leaf was secret is not known: in a ``gpu-platform:`` section
    every leaf of a setting that may be secret (``args.secret_settings``), elsewhere every string leaf."""
    try:
        value = json.loads(text)
    except ValueError:
        return SECURE_PLACEHOLDER
    if not isinstance(value, (dict, list)):
        return SECURE_PLACEHOLDER
    namespace, _, section = key.partition(":")
    ours = namespace == NAMESPACE

    def leaves(v: Any, loc: tuple[str | int, ...]) -> Any:
        if isinstance(v, dict):
            return {k: leaves(x, (*loc, _snake(str(k)))) for k, x in v.items()}
        if isinstance(v, list):
            return [leaves(x, (*loc, i)) for i, x in enumerate(v)]
        secret = isinstance(v, str) and (not ours or may_be_secret(loc))
        return SECURE_PLACEHOLDER if secret else v

    return json.dumps(leaves(value, (_snake(section),)))


@contextmanager
def config_environment(keep: bool) -> Iterator[None]:
    """Hide every ``PULUMI_CONFIG*`` variable from the program unless ``keep`` (then leave them)."""
    if keep:
        yield
        return
    saved = {k: v for k, v in os.environ.items() if k.startswith(ENV_PREFIX)}
    for key in saved:
        del os.environ[key]
    try:
        yield
    finally:
        for key in [k for k in os.environ if k.startswith(ENV_PREFIX)]:
            del os.environ[key]
        os.environ.update(saved)
