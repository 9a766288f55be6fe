"""Reading YAML whose errors name the file: not found, not UTF-8, malformed, not a mapping.

Every YAML audioeval reads (benchmark and runtime specs, run configs, prompt templates) is
loaded here, with PyYAML's safe loader (no tag builds a Python object) and a bound on alias
expansion: anchors that refer to anchors ("billion laughs") make a few hundred bytes stand
for millions of values, which a run would then write out in full. A key written twice in one
mapping is an error naming the key and both lines (PyYAML would keep the last one silently);
keys brought in by a merge (`<<: *base`) may still be overridden, as YAML intends.
Lists and mappings nested deeper than `MAX_NESTING` (the JSON bound, `bounded_json.py`) are
refused with the line, as is a text over `MAX_YAML_CHARS`: the YAML parser is slow, and no
spec, config or template comes near either bound.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

from audioeval.core.errors import InputError
from audioeval.core.json_value import JsonValue
from audioeval.store.bounded_json import MAX_NESTING
from audioeval.store.text_input import read_text_input

MAX_EXPANDED_NODES = 100_000
"""The most values (scalars, lists, mappings) a YAML file may stand for once its aliases are
expanded; a file without aliases stands for no more values than it writes out."""

MAX_YAML_CHARS = 16 * 1024 * 1024
"""The longest YAML text audioeval reads (specs, run configs, templates, boards): 16 MiB."""


def read_yaml_mapping(path: Path, what: str) -> dict[str, JsonValue]:
    """The file's top-level mapping; `what` names it in errors ("benchmark spec", …)."""
    return parse_yaml_mapping(read_text_input(path, what), str(path), what)


def parse_yaml_mapping(text: str, where: str, what: str) -> dict[str, JsonValue]:
    data = load_yaml(text, where)
    if not isinstance(data, dict):
        raise InputError(f"a {what} must be a YAML mapping", file=where)
    return data


def load_yaml(text: str, where: str) -> Any:
    """The document in `text` (read from `where`, which errors name)."""
    import yaml

    if len(text) > MAX_YAML_CHARS:
        raise InputError(
            f"YAML refused: {len(text):,} characters, over the bound of {MAX_YAML_CHARS:,}", file=where
        )
    try:
        return yaml.load(text, Loader=_bounded_loader())  # noqa: S506 - a SafeLoader subclass
    except _TooDeep as exc:
        raise InputError(f"YAML refused: {exc}", file=where, line=exc.line) from None
    except _AliasBomb as exc:
        raise InputError(f"YAML refused: {exc}", file=where) from None
    except _DuplicateKey as exc:
        raise InputError(str(exc), file=where, field=exc.key) from None
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        at = f" at line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        problem = " ".join(str(exc.problem or exc.context or "").split())
        if "python/" in problem:
            problem += "; tags that build Python objects are not accepted"
        raise InputError(f"malformed YAML ({problem}{at})", file=where) from None
    except yaml.YAMLError as exc:
        raise InputError(f"malformed YAML ({' '.join(str(exc).split())})", file=where) from None


class _AliasBomb(ValueError):
    """A document whose aliases stand for too many values, or for themselves."""


class _TooDeep(ValueError):
    """Lists and mappings nested deeper than MAX_NESTING."""

    def __init__(self, line: int) -> None:
        super().__init__(f"lists and mappings nested deeper than {MAX_NESTING} levels")
        self.line = line


class _DuplicateKey(ValueError):
    """A mapping that writes the same key twice."""

    def __init__(self, key: str, first_line: int, line: int) -> None:
        super().__init__(
            f"duplicate key {key!r} at line {line} (first at line {first_line}): "
            "YAML keeps only one value; remove one of them"
        )
        self.key = key


def _expanded_size(root: Any) -> int:
    """How many nodes the document stands for, each alias counted as the nodes it repeats."""
    import yaml

    sizes: dict[int, int] = {}
    open_nodes: set[int] = set()

    def size(node: Any) -> int:
        key = id(node)
        if key in sizes:
            return sizes[key]
        if key in open_nodes:
            raise _AliasBomb("an alias refers to a node that contains it")
        open_nodes.add(key)
        if isinstance(node, yaml.MappingNode):
            total = 1 + sum(size(k) + size(v) for k, v in node.value)
        elif isinstance(node, yaml.SequenceNode):
            total = 1 + sum(size(item) for item in node.value)
        else:
            total = 1
        open_nodes.discard(key)
        sizes[key] = min(total, MAX_EXPANDED_NODES + 1)
        return sizes[key]

    return size(root)


@functools.cache
def _bounded_loader() -> type:
    import yaml

    class BoundedSafeLoader(yaml.SafeLoader):
        """The safe loader, refusing documents whose aliases expand beyond the bound."""

        aliases_seen = False
        depth = 0

        def compose_node(self, parent: Any, index: Any) -> Any:
            if self.check_event(yaml.AliasEvent):
                self.aliases_seen = True
            if self.depth >= MAX_NESTING and self.check_event(
                yaml.SequenceStartEvent, yaml.MappingStartEvent
            ):
                raise _TooDeep(self.peek_event().start_mark.line + 1)
            self.depth += 1
            try:
                return super().compose_node(parent, index)
            finally:
                self.depth -= 1

        def construct_mapping(self, node: Any, deep: bool = False) -> Any:
            if isinstance(node, yaml.MappingNode):
                seen: dict[Any, int] = {}
                for key_node, _ in node.value:
                    if key_node.tag == "tag:yaml.org,2002:merge" or not isinstance(key_node, yaml.ScalarNode):
                        continue
                    key = self.construct_object(key_node)
                    line = key_node.start_mark.line + 1
                    if key in seen:
                        raise _DuplicateKey(str(key), seen[key], line)
                    seen[key] = line
            return super().construct_mapping(node, deep=deep)

        def construct_document(self, node: Any) -> Any:
            if self.aliases_seen and _expanded_size(node) > MAX_EXPANDED_NODES:
                raise _AliasBomb(
                    f"its aliases expand to more than {MAX_EXPANDED_NODES:,} values "
                    "(anchors that repeat anchors); write the values out instead"
                )
            return super().construct_document(node)

    return BoundedSafeLoader
