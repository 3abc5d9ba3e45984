"""What connects hsim to other programs: OpenSpiel's bots at hsim's table and hsim's
strategies as OpenSpiel bots (:mod:`hsim.bridges.openspiel`). A bridge may import the
play layer; nothing below it imports a bridge (the loader finds one by name)."""
