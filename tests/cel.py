"""A small evaluator for the CEL subset CRD validation rules use (``x-kubernetes-validations``).

Enough of https://github.com/google/cel-spec for the rules in the vendored Karpenter, AKS NAP and GKE
ComputeClass schemas: literals, ``self``, field selection, ``has()``, ``! && || ?:``, comparisons, ``in``,
``+``, indexing, the macros ``all/exists/exists_one/filter/map`` (over lists and map keys) and the functions
``size, int, string, dyn, startsWith, endsWith, contains, matches, find, split, lowerAscii``. Anything else
raises ``CelUnsupported``, so a rule this evaluator does not understand fails the test instead of passing.
Transition rules (``oldSelf``) apply only to updates and are not evaluated.
"""

from __future__ import annotations

import re
from typing import Any


class CelUnsupported(Exception):
    """The expression uses CEL this evaluator does not implement."""


class _Missing(Exception):
    """Selecting an absent field: an error in CEL (the rule author guards it with ``has``)."""


_TOKEN = re.compile(
    r"""\s*(?:
      (?P<num>\d+)
    | (?P<str>'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*")
    | (?P<op>&&|\|\||==|!=|<=|>=|[!<>?:.,()\[\]+\-])
    | (?P<id>[A-Za-z_][A-Za-z0-9_]*)
    )""",
    re.X,
)


def _tokens(text: str) -> list[tuple[str, Any]]:
    out: list[tuple[str, Any]] = []
    pos = 0
    text = text.strip()
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if not m or m.end() == pos:
            raise CelUnsupported(f"cannot tokenize at {text[pos : pos + 20]!r}")
        pos = m.end()
        kind = m.lastgroup
        value = m.group(kind or "")
        if kind == "str":
            value = bytes(value[1:-1], "utf-8").decode("unicode_escape")
        elif kind == "num":
            value = int(value)
        out.append((kind or "", value))
    out.append(("end", None))
    return out


class _Parser:
    """Recursive descent into a tiny AST of tuples; evaluation is separate."""

    def __init__(self, text: str):
        self.toks = _tokens(text)
        self.i = 0

    def peek(self, value: Any = None) -> bool:
        kind, v = self.toks[self.i]
        return v == value and kind in ("op", "id") if value is not None else False

    def take(self, value: Any = None) -> tuple[str, Any]:
        tok = self.toks[self.i]
        if value is not None and tok[1] != value:
            raise CelUnsupported(f"expected {value!r}, got {tok[1]!r}")
        self.i += 1
        return tok

    def parse(self) -> Any:
        node = self.ternary()
        if self.toks[self.i][0] != "end":
            raise CelUnsupported(f"trailing {self.toks[self.i][1]!r}")
        return node

    def ternary(self) -> Any:
        cond = self.or_()
        if self.peek("?"):
            self.take("?")
            a = self.ternary()
            self.take(":")
            b = self.ternary()
            return ("?", cond, a, b)
        return cond

    def or_(self) -> Any:
        node = self.and_()
        while self.peek("||"):
            self.take()
            node = ("||", node, self.and_())
        return node

    def and_(self) -> Any:
        node = self.rel()
        while self.peek("&&"):
            self.take()
            node = ("&&", node, self.rel())
        return node

    def rel(self) -> Any:
        node = self.add()
        while any(self.peek(o) for o in ("==", "!=", "<", "<=", ">", ">=", "in")):
            op = self.take()[1]
            node = (op, node, self.add())
        return node

    def add(self) -> Any:
        node = self.unary()
        while self.peek("+") or self.peek("-"):
            op = self.take()[1]
            node = (op, node, self.unary())
        return node

    def unary(self) -> Any:
        if self.peek("!"):
            self.take()
            return ("!", self.unary())
        if self.peek("-"):
            self.take()
            return ("neg", self.unary())
        return self.postfix()

    def postfix(self) -> Any:
        node = self.primary()
        while True:
            if self.peek("."):
                self.take()
                name = self.take()[1]
                node = ("call", name, node, self.args()) if self.peek("(") else ("sel", node, name)
            elif self.peek("["):
                self.take()
                idx = self.ternary()
                self.take("]")
                node = ("idx", node, idx)
            else:
                return node

    def args(self) -> list[Any]:
        self.take("(")
        out = []
        while not self.peek(")"):
            out.append(self.ternary())
            if self.peek(","):
                self.take()
        self.take(")")
        return out

    def primary(self) -> Any:
        kind, value = self.take()
        if kind in ("num", "str"):
            return ("lit", value)
        if kind == "op" and value == "(":
            node = self.ternary()
            self.take(")")
            return node
        if kind == "op" and value == "[":
            items = []
            while not self.peek("]"):
                items.append(self.ternary())
                if self.peek(","):
                    self.take()
            self.take("]")
            return ("list", items)
        if kind == "id":
            if value in ("true", "false"):
                return ("lit", value == "true")
            if value == "null":
                return ("lit", None)
            if self.peek("("):
                return ("fn", value, self.args())
            return ("var", value)
        raise CelUnsupported(f"unexpected {value!r}")


_MACROS = ("all", "exists", "exists_one", "filter", "map")


def _items(value: Any) -> list[Any]:
    if isinstance(value, dict):
        return list(value)
    if isinstance(value, list):
        return value
    raise CelUnsupported(f"cannot iterate {type(value).__name__}")


def _eval(node: Any, env: dict[str, Any]) -> Any:
    op = node[0]
    if op == "lit":
        return node[1]
    if op == "list":
        return [_eval(n, env) for n in node[1]]
    if op == "var":
        if node[1] not in env:
            raise CelUnsupported(f"unknown variable {node[1]}")
        return env[node[1]]
    if op == "sel":
        base = _eval(node[1], env)
        if not isinstance(base, dict) or node[2] not in base:
            raise _Missing(node[2])
        return base[node[2]]
    if op == "idx":
        base, key = _eval(node[1], env), _eval(node[2], env)
        try:
            return base[key]
        except (KeyError, IndexError, TypeError) as exc:
            raise _Missing(str(key)) from exc
    if op == "?":
        return _eval(node[2], env) if _eval(node[1], env) else _eval(node[3], env)
    if op == "||":
        return bool(_eval(node[1], env)) or bool(_eval(node[2], env))
    if op == "&&":
        return bool(_eval(node[1], env)) and bool(_eval(node[2], env))
    if op == "!":
        return not _eval(node[1], env)
    if op == "neg":
        return -_eval(node[1], env)
    if op in ("==", "!=", "<", "<=", ">", ">=", "in", "+", "-"):
        a, b = _eval(node[1], env), _eval(node[2], env)
        return {
            "==": lambda: a == b,
            "!=": lambda: a != b,
            "<": lambda: a < b,
            "<=": lambda: a <= b,
            ">": lambda: a > b,
            ">=": lambda: a >= b,
            "in": lambda: a in b,
            "+": lambda: a + b,
            "-": lambda: a - b,
        }[op]()
    if op == "fn":
        name, args = node[1], node[2]
        if name == "has":
            (arg,) = args
            if arg[0] != "sel":
                raise CelUnsupported("has() needs a field selection")
            base = _eval(arg[1], env)
            return isinstance(base, dict) and arg[2] in base
        values = [_eval(a, env) for a in args]
        if name == "size":
            return len(values[0])
        if name == "int":
            return int(values[0])
        if name == "string":
            return str(values[0])
        if name == "dyn":
            return values[0]
        raise CelUnsupported(f"function {name}()")
    if op == "call":
        name, target, args = node[1], node[2], node[3]
        if name in _MACROS:
            var = args[0]
            if var[0] != "var":
                raise CelUnsupported("macro variable")
            items = _items(_eval(target, env))
            body = args[1]
            results = [(x, _eval(body, {**env, var[1]: x})) for x in items]
            if name == "all":
                return all(r for _, r in results)
            if name == "exists":
                return any(r for _, r in results)
            if name == "exists_one":
                return sum(1 for _, r in results if r) == 1
            if name == "filter":
                return [x for x, r in results if r]
            return [r for _, r in results]
        base = _eval(target, env)
        values = [_eval(a, env) for a in args]
        if name == "size":
            return len(base)
        if name == "startsWith":
            return base.startswith(values[0])
        if name == "endsWith":
            return base.endswith(values[0])
        if name == "contains":
            return values[0] in base
        if name == "matches":
            return re.search(values[0], base) is not None
        if name == "find":
            m = re.search(values[0], base)
            return m.group(0) if m else ""
        if name == "split":
            return base.split(values[0])
        if name == "lowerAscii":
            return base.lower()
        raise CelUnsupported(f"method {name}()")
    raise CelUnsupported(op)


def evaluate(rule: str, value: Any) -> bool | None:
    """The rule on ``self = value``: True/False, or ``None`` for a transition rule (``oldSelf``)."""
    if "oldSelf" in rule:
        return None
    try:
        return bool(_eval(_Parser(rule).parse(), {"self": value}))
    except _Missing:
        return False  # a runtime error fails validation in the API server too
