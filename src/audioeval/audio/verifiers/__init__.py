"""Deterministic measurements over a clip or a slice of it, each answering yes / no / cannot tell.

Every check returns a `Measurement`: the measured value, the threshold it used, the answer and
the reason. A slice that lies outside the clip is "cannot tell", never "no".
"""

VERSION = "1"
