"""What a game is, in plain Python: cards (ints 0..51 and 52-bit masks, with names),
rules (a frozen dataclass of options, presets and a canonical string), seating, and the
notation of deals and positions. Imports nothing of hsim but :mod:`hsim.errors`."""
