"""What a JSON document can hold, as a type: the values `json.loads` gives and `json.dumps`
takes. A document whose keys are known has its own `TypedDict` beside the code that writes it;
`JsonValue` types what is JSON by contract and open by design (a scorer's statistics, the
detail that explains a score, a user's extra fields)."""

from __future__ import annotations

from typing import TypeAlias

JsonScalar: TypeAlias = str | int | float | bool | None
JsonValue: TypeAlias = JsonScalar | list["JsonValue"] | dict[str, "JsonValue"]
