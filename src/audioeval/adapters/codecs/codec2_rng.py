"""Making Codec2's decoder reproducible.

libcodec2 draws the phases of unvoiced harmonics from `codec2_rand()`, a C library LCG whose
state is one process-wide static variable (`next`, initially 1). Decoding the same bitstream
twice therefore gives slightly different audio (PESQ moves by ~0.01). This module finds that
variable in the loaded libcodec2 (its ELF symbol table and its load address in
/proc/self/maps), proves it is the generator's state by calling `codec2_rand()` once and
checking the result, and resets it to 1 before each decode, under a lock. Where a step fails
(another OS, a stripped library), decoding still works but is not bit-reproducible:
`reproducible()` says which. The encoder does not use the generator.
"""

from __future__ import annotations

import ctypes
import os
import struct
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

_MULT, _INC, _MASK = 1103515245, 12345, (1 << 64) - 1
_lock = threading.Lock()
_state: list[ctypes.c_ulong | None] = []  # [] until looked up; [None] when unavailable


def _elf_symbols(path: str, names: set[str]) -> dict[str, int]:
    """Values of the named symbols in a 64-bit little-endian ELF file's .symtab."""
    data = Path(path).read_bytes()
    if data[:4] != b"\x7fELF" or data[4] != 2 or data[5] != 1:
        return {}
    (shoff,) = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum = struct.unpack_from("<HH", data, 0x3A)
    sections = [struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize) for i in range(shnum)]
    found: dict[str, int] = {}
    for sec in sections:
        if sec[1] != 2:  # SHT_SYMTAB
            continue
        strings = sections[sec[6]][4]
        for off in range(sec[4], sec[4] + sec[5], 24):
            name_at, _, _, _, value, _ = struct.unpack_from("<IBBHQQ", data, off)
            name = data[strings + name_at : data.index(b"\0", strings + name_at)].decode("ascii", "replace")
            if name in names:
                found[name] = value
    return found


def _loaded_library() -> tuple[str, int] | None:
    """Path and load address of the libcodec2 mapped into this process."""
    try:
        lines = Path("/proc/self/maps").read_text().splitlines()
    except OSError:
        return None
    for line in lines:
        parts = line.split()
        if len(parts) >= 6 and os.path.basename(parts[5]).startswith("libcodec2") and int(parts[2], 16) == 0:
            return parts[5], int(parts[0].split("-")[0], 16)
    return None


def _locate() -> ctypes.c_ulong | None:
    lib = _loaded_library()
    if lib is None:
        return None
    path, base = lib
    symbols = _elf_symbols(path, {"next", "codec2_rand"})
    if set(symbols) != {"next", "codec2_rand"}:
        return None
    rand = ctypes.CDLL(path).codec2_rand
    rand.restype = ctypes.c_int
    if ctypes.cast(rand, ctypes.c_void_p).value != base + symbols["codec2_rand"]:
        return None  # the symbol table does not describe this mapping
    cell = ctypes.c_ulong.from_address(base + symbols["next"])
    before = cell.value
    value = rand()
    expected = (before * _MULT + _INC) & _MASK
    if cell.value != expected or value != (expected // 65536) % 32768:
        return None
    return cell


def _cell() -> ctypes.c_ulong | None:
    if not _state:
        try:
            _state.append(_locate())
        except (OSError, ValueError, struct.error, AttributeError):
            _state.append(None)
    return _state[0]


def reproducible() -> bool:
    """Whether Codec2 decoding is bit-reproducible in this process (pycodec2 must be imported)."""
    with _lock:
        return _cell() is not None


@contextmanager
def seeded() -> Iterator[None]:
    """Hold the generator lock, with its state reset to libcodec2's initial 1."""
    with _lock:
        cell = _cell()
        if cell is not None:
            cell.value = 1
        yield
