"""What a scenario may put into a generated Tcl script, and how it gets there.

Read first: :func:`check_scenario`. A scenario is data that people share; the ns-2 and
nOBS exporters (:mod:`burstlab.export.ns2`, :mod:`burstlab.export.nobs`) turn it into a
Tcl program that ``burstlab export … --compare`` runs. Tcl substitutes ``[command]`` and
``$variable`` inside bare words and double quotes, ends a command at a newline or ``;``,
continues a line (a comment's too) after a backslash, and counts braces even inside
comments of a braced body. So no string from the scenario may reach the script as it is:

* **Names** (nodes, flows, fabrics, classes, the scenario's own name) are written as Tcl
  words and array indices (``set n(NAME) …``). They must match :data:`NAME_PATTERN`:
  letters, digits, ``_``, ``.`` and ``-``, at most :data:`MAX_NAME` characters. Anything
  else is refused with an error naming the field, before a line is written. burstlab
  itself runs such scenarios; only the export refuses them.
* **Every other string** of the scenario (durations, rates, kinds, file names, …) may not
  hold a control character (newline, carriage return, tab, …) nor one of ``[ ] $ { } \\ "
  ;``. The core parses most of them strictly anyway; this check holds for every field,
  including ones a future exporter starts to write.
* **Comments** the exporters write go through :func:`comment`, which keeps printable ASCII
  without backslashes and braces, so a comment always ends at its own line's end.
* **File paths** (a trace file) go through :func:`path`: written in braces, which stop
  every substitution, and refused when they hold a brace, a backslash or a control
  character.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from typing import Any

from burstlab import _core

#: The alphabet of a name written into a Tcl script.
NAME_PATTERN = re.compile(r"[A-Za-z0-9_.\-]+")
#: The longest name written into a Tcl script.
MAX_NAME = 64
#: Characters no string of the scenario may bring into a script (besides control ones).
TCL_SPECIAL = frozenset('[]${}\\";')

def _error(path: str, reason: str) -> _core.ScenarioError:
    return _core.ScenarioError(f"{path}: {reason}")


def name(value: Any, path: str) -> str:
    """``value`` as a Tcl word, or a ScenarioError naming ``path`` when it is not a name
    of :data:`NAME_PATTERN` (at most :data:`MAX_NAME` characters)."""
    s = str(value)
    if len(s) > MAX_NAME or not NAME_PATTERN.fullmatch(s):
        raise _error(path, f"{s[:80]!r} cannot be written into a Tcl script: an exported "
                     f"name uses only letters, digits, '_', '.' and '-' (at most {MAX_NAME} "
                     "characters); rename it to export the scenario")
    return s


def comment(text: str) -> str:
    """``text`` made safe to stand after ``#`` or ``;#``: printable ASCII only, without
    backslashes or braces (each other character becomes ``?``)."""
    return "".join(c if " " <= c <= "~" and c not in "\\{}" else "?" for c in text)


def path(value: str, what: str) -> str:
    """A file path as a braced Tcl word (no substitution inside), or a ScenarioError
    naming ``what`` when the path holds a brace, a backslash or a control character."""
    if any(c in "{}\\" or c < " " or c == "\x7f" for c in value):
        raise _error(what, f"{value[:80]!r} cannot be written into a Tcl script (braces, "
                     "backslashes and control characters are refused)")
    return "{" + value + "}"


def _strings(node: Any, at: str) -> Iterator[tuple[str, str]]:
    """Every string in a scenario (keys included), with its field path."""
    if isinstance(node, str):
        yield at, node
    elif isinstance(node, Mapping):
        for k, v in node.items():
            sub = f"{at}.{k}" if at else str(k)
            yield f"{sub} (the key)", str(k)
            yield from _strings(v, sub)
    elif isinstance(node, list | tuple):
        for i, v in enumerate(node):
            yield from _strings(v, f"{at}[{i}]")


def check_scenario(spec: Mapping[str, Any]) -> None:
    """Refuses a scenario any of whose strings could change the meaning of an exported
    Tcl script: a ``name`` (of the scenario, a node, a flow, a fabric, a class, … — every
    key called ``name`` at any depth) outside :data:`NAME_PATTERN`, and anywhere a
    control character or one of :data:`TCL_SPECIAL`. Raises ScenarioError naming the
    first such field."""
    for at, s in _strings(spec, ""):
        if at == "name" or at.endswith(".name"):
            name(s, at)
        bad = next((c for c in s if c < " " or c == "\x7f" or c in TCL_SPECIAL), None)
        if bad is not None:
            raise _error(at, f"{s[:80]!r} holds {bad!r}, which a Tcl script would read as "
                         "code or as the end of a command; the export refuses it")
